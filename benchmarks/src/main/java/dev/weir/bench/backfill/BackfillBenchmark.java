package dev.weir.bench.backfill;

import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.RawBulk;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.copy.DocumentCopyStore;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * backfill, side by side in one run on the local stack, over a copy of {@code documents} generated
 * products documents (~6 kB descriptions) written to product_document by the search-index job's
 * copy writer:
 *
 * <ol>
 *   <li>a <b>raw bulk load</b> of the very same documents ({@link RawBulk}, as many loaders as the
 *       backfill has parallel writers), already in memory;
 *   <li><b>weir backfill</b> into an empty index: its copy pass (read the copy split by split,
 *       compare with the target, bulk-write), then the whole run (plus the catch-up pass and the
 *       check for deletes);
 *   <li>the <b>same backfill again</b> over the unchanged index: what it sends.
 * </ol>
 */
public final class BackfillBenchmark {

  private static final String CATALOG = "bench_backfill_catalog";
  private static final String RAW = "bench-backfill-raw";
  private static final String TARGET = "bench-backfill-weir";

  private BackfillBenchmark() {}

  /**
   * One backfill run: its summary, its copy pass's seconds (job submission to its end) and the CPU
   * seconds each process used over the whole run ({@link CpuUse}).
   */
  public record Run(Backfill.Summary summary, double copyPassSeconds, Map<String, Double> cpu) {
    public double copyPassDocsPerSecond() {
      return summary.documents() / copyPassSeconds;
    }

    public double docsPerSecond() {
      return summary.documents() / (summary.elapsed().toMillis() / 1e3);
    }
  }

  /** {@code rawCpu}: the CPU seconds each process used in the raw bulk's best round. */
  public record Result(
      int documents,
      int parallelism,
      int rounds,
      double rawSeconds,
      Map<String, Double> rawCpu,
      Run first,
      Run second) {
    public double rawDocsPerSecond() {
      return documents / rawSeconds;
    }

    /**
     * The raw side's CPU seconds over the backfill's (every process, the first run): about the
     * highest whole run / raw bulk the cores allow when they are all busy. NaN if not measured.
     */
    public double cpuBound() {
      double weir = CpuUse.total(first.cpu());
      return weir > 0 && !rawCpu.isEmpty() ? CpuUse.total(rawCpu) / weir : Double.NaN;
    }
  }

  public static Result run(LocalStack stack, int documents, int parallelism, int rounds)
      throws Exception {
    Connections connections = stack.up();
    // The products definition is planned against the catalog's tables, which stay empty: the
    // documents go to the copy directly.
    stack.recreatePostgresDatabase(CATALOG);
    String catalogUrl = connections.postgresJdbcUrl(CATALOG);
    WeirConfig config =
        BenchEnvironment.freshDatabase(stack, connections, "bench_backfill")
            .with(DocumentOptions.CATALOG_URL, catalogUrl)
            .with(WeirOptions.PARALLELISM, Integer.toString(parallelism))
            .with(BackfillOptions.TARGET, TARGET)
            // Nothing streams here: no in-flight writes to wait for before the catch-up pass.
            .with(BackfillOptions.SETTLE, "0 s");
    CatalogLoader.createTables(config, catalogUrl);
    DocumentPlan plan = Definitions.plans(config).get(0);
    fill(config, plan, documents);
    String mapping = new DocumentIndex(plan).mapping();
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      List<DocumentOperation> copy = copy(config, plan);
      // Warm the node (JIT, first index creation) so neither side pays for it.
      RawBulk.load(es, RAW, mapping, copy.subList(0, Math.min(documents, 2 * RawBulk.BATCH)), 1);
      // Rounds of both sides in turn; the best of each is kept (a shared machine is noisy).
      double raw = Double.MAX_VALUE;
      Map<String, Double> rawCpu = Map.of();
      Run first = null;
      for (int round = 0; round < rounds; round++) {
        RawBulk.createIndex(es, RAW, mapping);
        CpuUse cpu = CpuUse.start(stack);
        long start = System.nanoTime();
        RawBulk.send(es, RAW, copy, parallelism);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (seconds < raw) {
          raw = seconds;
          rawCpu = cpu.seconds();
        }
        es.deleteIndex(RAW);
        es.deleteIndex(TARGET);
        Run run = backfill(stack, config);
        if (first == null || run.copyPassSeconds() < first.copyPassSeconds()) {
          first = run;
        }
      }
      Run second = backfill(stack, config);
      return new Result(documents, parallelism, rounds, raw, rawCpu, first, second);
    }
  }

  /** The copy: {@code documents} generated documents, written by the job's copy writer. */
  private static void fill(WeirConfig config, DocumentPlan plan, int documents) throws Exception {
    CatalogLoader generator = new CatalogLoader(11);
    DocumentCopy copy = new DocumentCopy(plan);
    try (Connection c = PostgresConnectionProvider.open(config)) {
      copy.migrate(c);
    }
    try (DocumentCopyStore writer = copy.store(PostgresConnectionProvider.open(config))) {
      List<DocumentChange> batch = new ArrayList<>();
      for (long id = 1; id <= documents; id++) {
        batch.add(generator.document(plan, id, 1_000 + id));
        if (batch.size() == 500 || id == documents) {
          writer.write(batch);
          batch.clear();
        }
      }
    }
  }

  /** The copy's documents as the operations a raw loader sends (the backfill sends the same). */
  private static List<DocumentOperation> copy(WeirConfig config, DocumentPlan plan)
      throws Exception {
    List<DocumentOperation> ops = new ArrayList<>();
    try (Connection c = PostgresConnectionProvider.open(config)) {
      for (DocumentCopy.CopiedDocument d : new DocumentCopy(plan).readRange(c, null, null)) {
        ops.add(DocumentOperation.index(RAW, d.id(), d.version(), d.source()));
      }
    }
    return ops;
  }

  private static Run backfill(LocalStack stack, WeirConfig config) throws Exception {
    Map<String, Double> passSeconds = new HashMap<>();
    CpuUse cpu = CpuUse.start(stack);
    Backfill.Summary summary =
        Backfill.run(
            config,
            false,
            BenchEnvironment::miniCluster,
            (pass, done, total, rate) -> passSeconds.put(pass, rate > 0 ? done / rate : 0));
    return new Run(summary, passSeconds.getOrDefault("copy", Double.NaN), cpu.seconds());
  }
}
