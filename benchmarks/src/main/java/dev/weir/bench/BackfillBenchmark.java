package dev.weir.bench;

import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
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
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

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
    double copyPassDocsPerSecond() {
      return summary.documents() / copyPassSeconds;
    }

    double docsPerSecond() {
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
    double rawDocsPerSecond() {
      return documents / rawSeconds;
    }

    /**
     * The raw side's CPU seconds over the backfill's (every process, the first run): about the
     * highest whole run / raw bulk the cores allow when they are all busy. NaN if not measured.
     */
    double cpuBound() {
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
        BenchDatabases.fresh(stack, connections, "bench_backfill")
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
            StreamExecutionEnvironment::getExecutionEnvironment,
            (pass, done, total, rate) -> passSeconds.put(pass, rate > 0 ? done / rate : 0));
    return new Run(summary, passSeconds.getOrDefault("copy", Double.NaN), cpu.seconds());
  }

  /** The results as Markdown, with the command that made them. */
  public static String markdown(Result r, String command) {
    StringBuilder md = BenchReport.header("backfill benchmark", command);
    md.append("the local stack (PostgreSQL with fsync off, one Elasticsearch node). Input: ")
        .append(String.format("%,d", r.documents()))
        .append(
            " products documents (descriptions of ~6 kB) in `product_document`, written by the"
                + " job's copy writer. Parallelism ")
        .append(r.parallelism())
        .append(" for the backfill, as many loaders for the raw bulk. ")
        .append(
            r.rounds() == 1
                ? "1 round of the raw bulk and the backfill into an empty index in turn.\n\n"
                : r.rounds()
                    + " rounds of the raw bulk and the backfill into an empty index in turn; the"
                    + " best of each side is shown.\n\n");
    md.append("## Documents per second\n\n");
    md.append("| | documents | seconds | documents/s |\n|---|---:|---:|---:|\n");
    row(
        md,
        "raw bulk of the same documents (in memory, batches of 1000)",
        r.documents(),
        r.rawSeconds());
    row(
        md,
        "weir backfill, copy pass (read the copy, compare, bulk-write)",
        r.documents(),
        r.first().copyPassSeconds());
    row(
        md,
        "weir backfill, whole run (copy pass, catch-up pass, deletes check)",
        r.documents(),
        r.first().summary().elapsed().toMillis() / 1e3);
    double copyRatio = r.first().copyPassDocsPerSecond() / r.rawDocsPerSecond();
    double wholeRatio = r.first().docsPerSecond() / r.rawDocsPerSecond();
    md.append(
        String.format(
            "%n- the whole run / raw bulk: **%s** (target ≥ 0.9: %s); the copy pass alone: %.2f.%n",
            BenchReport.shown(wholeRatio, 0.9, ""),
            wholeRatio >= 0.9 ? "met" : "NOT met",
            copyRatio));
    md.append(
        "- The copy pass is timed from the job's submission (a MiniCluster start included) until its"
            + " last bulk request is answered; the raw bulk from its first request until its last is"
            + " answered, with the documents already in memory. Both are counted again afterwards. The"
            + " whole run adds the index's refresh, the catch-up pass (the documents written to the"
            + " copy since the copy pass began, here none: nothing streams during the benchmark, so"
            + " no second job runs; with streaming it is a bounded job over those documents only) and"
            + " the deletes check, which reads every id the target holds.\n");
    md.append("- The whole run's steps: ").append(r.first().summary().stepsLine()).append(".\n\n");
    md.append(cpuTable(r));
    md.append("## A second run over the unchanged index\n\n");
    md.append(
        "| | sent | skipped as unchanged | bytes sent | seconds |\n|---|---:|---:|---:|---:|\n");
    for (String name : List.of("first run", "second run")) {
      Backfill.Summary s = name.equals("first run") ? r.first().summary() : r.second().summary();
      md.append(
          String.format(
              "| %s | %,d | %,d | %,d | %.1f |%n",
              name, s.sent(), s.skippedUnchanged(), s.bytesSent(), s.elapsed().toMillis() / 1e3));
    }
    double share =
        100.0 * r.second().summary().bytesSent() / Math.max(1, r.first().summary().bytesSent());
    md.append(
        String.format(
            "%n- the second run sent **%.2f%%** of the first run's bytes (target ≤ 1%%: %s).%n",
            share, share <= 1 ? "met" : "NOT met"));
    return md.toString();
  }

  /**
   * CPU seconds by process on each side (the raw bulk's best round, the backfill's whole first
   * run), and the ratio those allow when the cores are busy: where the backfill's extra work goes.
   */
  static String cpuTable(Result r) {
    Map<String, Double> weir = r.first().cpu();
    Map<String, Double> raw = r.rawCpu();
    if (Double.isNaN(r.cpuBound())) {
      return "";
    }
    StringBuilder md =
        new StringBuilder(
            "## Where the cores went\n\nCPU seconds each process used: the raw bulk's best round"
                + " (its first request to its last answer), the backfill's whole first run (Linux"
                + " /proc; a service's process tree). The benchmark JVM runs the backfill's job"
                + " (MiniCluster) on weir's side, the bulk loaders on the raw side.\n\n"
                + "| process | weir backfill | raw bulk |\n|---|---:|---:|\n");
    CpuUse.appendRows(md, weir, raw);
    double weirTotal = CpuUse.total(weir);
    double rawTotal = CpuUse.total(raw);
    double weirSeconds = r.first().summary().elapsed().toMillis() / 1e3;
    int cores = Runtime.getRuntime().availableProcessors();
    md.append(String.format("| **all** | **%.1f** | **%.1f** |%n", weirTotal, rawTotal));
    md.append(
        String.format(
            "| cores × seconds available | %.1f | %.1f |%n%n",
            cores * weirSeconds, cores * r.rawSeconds()));
    md.append(
        String.format(
            "- Per 1,000 documents: %.2f CPU s on weir's side, %.2f on the raw bulk's. When the"
                + " cores are all busy, the whole run / raw bulk can be at most about the raw"
                + " side's CPU over weir's: %.2f here. weir's extra is reading the copy"
                + " (PostgreSQL, the job) and the job's start.%n%n",
            weirTotal * 1000 / r.documents(), rawTotal * 1000 / r.documents(), r.cpuBound()));
    return md.toString();
  }

  private static void row(StringBuilder md, String name, long documents, double seconds) {
    md.append(
        String.format(
            "| %s | %,d | %.1f | %,.0f |%n", name, documents, seconds, documents / seconds));
  }
}
