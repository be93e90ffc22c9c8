package dev.weir.bench.documents;

import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.ElasticsearchCore;
import dev.weir.bench.support.IndexLoad;
import dev.weir.bench.support.IndexProgress;
import dev.weir.bench.support.IndexedDocument;
import dev.weir.bench.support.PacedInput;
import dev.weir.bench.support.RawBulk;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.BundledDocuments;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;

/**
 * The search-index on a declared document: today's catalog as schemas/documents/products.json.
 *
 * <ol>
 *   <li><b>fan-out</b>: every product shares one brand; after an untimed rename that warms the
 *       path, the brand renamed once, then ten times in a burst (20 ms apart), each step started
 *       once Elasticsearch runs no merge: seconds until every document shows the new name, and copy
 *       rows and index operations per affected document (1 = each written once);
 *   <li><b>price-only changes</b>: one new price per product through the job; WAL bytes per change
 *       against a hand-written {@code UPDATE} of just the changed columns (price, content_hash,
 *       doc_version) of the same rows, on a copy of the same table in the same run;
 *   <li><b>end to end</b>: documents/s from the start of the topics until the alias counts every
 *       product, against the raw bulk of the documents the job indexed (the median of {@value
 *       RawBulk#PASSES} passes).
 * </ol>
 */
public final class DocumentsBenchmark {

  private static final String CATALOG = "bench_documents_catalog";
  private static final String INDEX = "bench-documents";
  static final int BURST = 10;

  /**
   * A change to a node every document shares, and what reaching every document took: seconds, of
   * which those until the change was readable in the capture's topic (NaN for a raw bulk, which has
   * no capture), the writes, and the CPU seconds each process used over those seconds.
   */
  public record FanOut(
      String name,
      long documents,
      double seconds,
      double readableSeconds,
      long copyRowsUpdated,
      long indexOperations,
      Map<String, Double> cpu) {
    public double documentsPerSecond() {
      return documents / seconds;
    }

    /** The share of the {@code cores}' time the processes measured used over the step. */
    public double busyShare(int cores) {
      return CpuUse.total(cpu) / (seconds * cores);
    }

    public double copyRowsPerDocument() {
      return (double) copyRowsUpdated / documents;
    }

    public double indexOperationsPerDocument() {
      return (double) indexOperations / documents;
    }
  }

  /** The end-to-end pass: the job's load and the raw bulk of its documents (its median pass). */
  public record EndToEnd(IndexLoad job, IndexLoad raw, TableStats copy) {
    public double ratio() {
      return job.documentsPerSecond() / raw.documentsPerSecond();
    }
  }

  public record Result(
      int products,
      Instant measured,
      FanOut rename,
      FanOut burst,
      FanOut rawOverwrite,
      FanOut renameOwnCore,
      FanOut rawOverwriteOwnCore,
      CopyWrites declaredWrites,
      CopyWrites handWritten,
      PacedInput.Latency priceLatency,
      EndToEnd declared) {

    /** weir's WAL per price-only change over the hand-written UPDATE's (target at most 1.2). */
    public double walOverHandWritten() {
      return ((double) declaredWrites.walBytes() / Math.max(1, declaredWrites.changes()))
          / ((double) handWritten.walBytes() / Math.max(1, handWritten.changes()));
    }

    /**
     * The time until every document showed the shared rename over the time a raw bulk of as many of
     * these documents takes (the end-to-end pass's, in the same run): target at most 2.
     */
    public double fanOutOverRawBulk() {
      return rename.seconds() / (rename.documents() / declared.raw().documentsPerSecond());
    }

    /**
     * The rename's time from the moment its change was readable in the capture's topic over the
     * time a raw bulk of as many documents takes: the part of the ratio the search-index job makes.
     */
    public double fanOutFromReadableOverRawBulk() {
      return (rename.seconds() - rename.readableSeconds())
          / (rename.documents() / declared.raw().documentsPerSecond());
    }

    /**
     * With Elasticsearch on a core of its own: the rename's time over a raw bulk overwriting the
     * same documents on the same cores. Empty where the cores cannot be separated.
     */
    public Optional<Double> fanOutOverRawOwnCore() {
      return renameOwnCore == null || rawOverwriteOwnCore == null
          ? Optional.empty()
          : Optional.of(renameOwnCore.seconds() / rawOverwriteOwnCore.seconds());
    }

    /** The steps of the shared change, in the order of the results table. */
    public List<FanOut> fanOuts() {
      return Stream.of(rename, burst, rawOverwrite, renameOwnCore, rawOverwriteOwnCore)
          .filter(Objects::nonNull)
          .toList();
    }
  }

  private DocumentsBenchmark() {}

  public static Result run(LocalStack stack, int products, Path workDir) throws Exception {
    Instant measured = Instant.now();
    Connections connections = stack.up();
    stack.ensurePostgresDatabase(CATALOG);
    WeirConfig live = config(stack, connections, workDir, "bench_documents_live", INDEX + "-live");
    CatalogCaptureJob.dropSlot(live);
    stack.recreatePostgresDatabase(CATALOG);
    // The definition's topics (it cannot be planned before the catalog has its tables).
    String prefix = live.get(DocumentOptions.CDC_TOPIC_PREFIX);
    KafkaTopics.deleteTopics(
        live,
        List.of(
            prefix + "product",
            prefix + "brand",
            prefix + "category",
            live.get(DocumentOptions.PRICING_TOPIC)));
    SearchCluster es = ElasticsearchConnection.cluster(live);
    try {
      BenchEnvironment.deleteIndices(es, INDEX + "*");
      String catalogUrl = live.get(DocumentOptions.CATALOG_URL);
      String pricing = live.get(DocumentOptions.PRICING_TOPIC);
      CatalogLoader loader = new CatalogLoader(11);
      loader.load(live, catalogUrl, pricing, products, 1, 0, Duration.ZERO);
      DocumentPlan plan = Definitions.plans(live).get(0);
      String copyTable = plan.copyTable();

      // 1 and 2: the capture and the declared job running, as deployed.
      String alias = INDEX + "-live";
      JobClient capture =
          JobRunner.start(new CatalogCaptureJob(), BenchEnvironment.miniCluster(), live);
      JobClient job = JobRunner.start(new SearchIndexJob(), BenchEnvironment.miniCluster(), live);
      FanOut rename;
      FanOut burst;
      FanOut renameOwnCore = null;
      CopyWrites declaredWrites;
      CopyWrites handWritten;
      PacedInput.Latency priceLatency;
      try {
        BenchEnvironment.awaitCount(() -> BenchEnvironment.count(es, alias), products);
        // Steady state, as for the raw bulk's passes: the rename's path warmed by one untimed
        // rename, and each timed step started once Elasticsearch runs no merge of the step before.
        BrandRenames renames =
            new BrandRenames(
                stack, live, es, alias, copyTable, catalogUrl, prefix + "brand", products);
        renames.run("warmup", 1, "warm-up");
        BenchEnvironment.awaitMergesDone(es);
        rename = renames.run("rename", 1, "one brand rename");
        BenchEnvironment.awaitMergesDone(es);
        burst = renames.run("burst", BURST, BURST + " renames of it, 20 ms apart");
        CopyWrites[] writes = PriceChanges.writes(live, loader, pricing, copyTable, products);
        declaredWrites = writes[0];
        handWritten = writes[1];
        priceLatency = PriceChanges.latency(live, es, alias, pricing, products);
        if (ElasticsearchCore.possible()) {
          renameOwnCore =
              ElasticsearchCore.run(
                  stack,
                  () -> {
                    BenchEnvironment.awaitMergesDone(es);
                    return renames.run(
                        "owncore", 1, "one brand rename, Elasticsearch on a core of its own");
                  });
        }
      } finally {
        job.cancel().get();
        capture.cancel().get();
      }
      BenchEnvironment.awaitMergesDone(es);
      FanOut rawOverwrite =
          BrandRenames.rawOverwrite(
              stack, es, alias, products, "overwritex1", "raw bulk overwriting them (no job)");
      FanOut rawOverwriteOwnCore = null;
      if (renameOwnCore != null) {
        rawOverwriteOwnCore =
            ElasticsearchCore.run(
                stack,
                () -> {
                  BenchEnvironment.awaitMergesDone(es);
                  return BrandRenames.rawOverwrite(
                      stack,
                      es,
                      alias,
                      products,
                      "overwritex2",
                      "raw bulk overwriting them, Elasticsearch on a core of its own");
                });
      }

      // 3: end to end from the start of the topics, on a fresh copy and index.
      BenchEnvironment.awaitMergesDone(es);
      WeirConfig declared =
          config(stack, connections, workDir, "bench_documents_declared", INDEX + "-declared");
      EndToEnd declaredPass =
          endToEnd(
              stack,
              es,
              declared,
              INDEX + "-declared",
              new DocumentIndex(plan).mapping(),
              copyTable,
              products,
              "declared");
      return new Result(
          products,
          measured,
          rename,
          burst,
          rawOverwrite,
          renameOwnCore,
          rawOverwriteOwnCore,
          declaredWrites,
          handWritten,
          priceLatency,
          declaredPass);
    } finally {
      CatalogCaptureJob.dropSlot(live);
      es.close();
    }
  }

  private static EndToEnd endToEnd(
      LocalStack stack,
      SearchCluster es,
      WeirConfig config,
      String alias,
      String mapping,
      String copyTable,
      int products,
      String name)
      throws Exception {
    BenchEnvironment.forgetOffsets(config, SearchIndexJob.NAME);
    JobClient job = JobRunner.start(new SearchIndexJob(), BenchEnvironment.miniCluster(), config);
    IndexLoad weir;
    try {
      BenchEnvironment.awaitRunning(job);
      long running = System.nanoTime();
      CpuUse cpu = CpuUse.start(stack);
      try (IndexProgress progress = IndexProgress.watch(es, alias)) {
        weir = IndexLoad.timed("weir, " + name, products, running, progress, cpu, es, alias);
      }
      weir = weir.settle(es, alias, cpu);
    } finally {
      job.cancel().get();
    }
    IndexLoad raw =
        RawBulk.timedPasses(stack, es, mapping, IndexedDocument.readAll(es, alias), alias + "-raw");
    return new EndToEnd(weir, raw, copyStats(config, copyTable));
  }

  /** Settings of a declared run: its own copy database and index, the catalog's topics. */
  private static WeirConfig config(
      LocalStack stack, Connections connections, Path workDir, String copy, String index)
      throws IOException {
    WeirConfig base =
        CaptureOptions.ownCatalog(
            BenchEnvironment.freshDatabase(stack, connections, copy),
            connections.postgresJdbcUrl(CATALOG),
            CATALOG,
            "bench.documents",
            index);
    Path file =
        BundledDocuments.write(
            workDir.resolve(index + ".json"),
            "products.json",
            CATALOG,
            index,
            base.get(DocumentOptions.PRICING_TOPIC));
    return base.with(DocumentOptions.DOCUMENTS, file.toString());
  }

  static TableStats copyStats(WeirConfig config, String table) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return TableStats.read(c, table);
    }
  }
}
