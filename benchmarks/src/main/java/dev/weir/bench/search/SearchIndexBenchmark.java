package dev.weir.bench.search;

import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CopyRows;
import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.ElasticsearchCore;
import dev.weir.bench.support.IndexLoad;
import dev.weir.bench.support.IndexProgress;
import dev.weir.bench.support.IndexedDocument;
import dev.weir.bench.support.RawBulk;
import dev.weir.bench.support.WalRecords;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;

/**
 * search-index, side by side in one run on the local stack:
 *
 * <ol>
 *   <li>a catalog of {@code products} products (descriptions of ~6 kB) is filled and captured by
 *       cdc-catalog into Kafka (not measured);
 *   <li><b>end to end</b>: the search-index job (the bundled products definition) reads the topics
 *       and writes its copy, product_document, and Elasticsearch; timed from the job's RUNNING
 *       until every document is searchable. Then a <b>raw bulk load</b> of the very same documents
 *       (read back from weir's index) into a fresh index with the same mapping, one loader per
 *       core: {@value RawBulk#PASSES} passes, the median one compared. Each side also reports the
 *       CPU each process used ({@link CpuUse}) and its rate after warm-up ({@link IndexProgress}).
 *       Done twice, the second compared (the first pays the JIT of a fresh JVM and perhaps a fresh
 *       Elasticsearch), and after the price changes in {@value #SEPARATE_CORES_PAIRS} pairs with
 *       Elasticsearch on a core of its own ({@link ElasticsearchCore}), the judged ratio;
 *   <li><b>price-only changes</b>: a new price for every product. weir's job writes them to
 *       product_document; the naive side applies the same final rows as plain full-row upserts to a
 *       table of the same shape seeded with the same rows. WAL bytes and TOAST tuples written, each
 *       side on its own.
 * </ol>
 */
public final class SearchIndexBenchmark {

  private static final String CATALOG = "bench_catalog";
  private static final String ALIAS = "bench-products";
  private static final String FIRST_ALIAS = "bench-products-first";
  private static final String CORES_ALIAS = "bench-products-cores";

  private SearchIndexBenchmark() {}

  /**
   * @param descriptionChars about how many characters each product's description has
   * @param first the first pass (a fresh JVM for the job, perhaps a fresh Elasticsearch); {@code
   *     weir} and {@code raw} are the second, warm one
   * @param separateCores a pass with Elasticsearch on a core of its own and everything else on the
   *     others, as on machines of their own; null where that cannot be arranged
   * @param jobStartSeconds from the job's submission until it runs (migrations, the alias, the
   *     MiniCluster, scheduling): once per job, not per document, so not in {@code weir}'s time
   */
  public record Result(
      int products,
      int descriptionChars,
      Pass first,
      IndexLoad weir,
      IndexLoad raw,
      Pass separateCores,
      CopyWrites weirWrites,
      CopyWrites naiveWrites,
      double jobStartSeconds) {

    /** weir's documents/s over the raw bulk's median pass, each over its whole load. */
    public double ratio() {
      return weir.documentsPerSecond() / raw.documentsPerSecond();
    }

    /** The same after each side's warm-up, where both were long enough to measure. */
    public Optional<Double> steadyRatio() {
      return new Pass(weir, raw).steadyRatio();
    }

    /**
     * The ratio the design's target judges: with Elasticsearch on a core of its own, at steady
     * state (after warm-up) where that was long enough to measure, else over the whole load;
     * without a separate-cores pass, the shared cores' second pass.
     */
    public double judgedRatio() {
      Pass judged = judgedPass();
      return judged.steadyRatio().orElse(judged.ratio());
    }

    /** The pass {@link #judgedRatio} is taken from. */
    public Pass judgedPass() {
      return separateCores != null ? separateCores : new Pass(weir, raw);
    }

    /**
     * What {@link #judgedRatio} is the median of, for a report: "median of 5 pairs", or where the
     * judged pass has no pairs, its raw bulk's "median of 3 passes".
     */
    public String judgedMedianOf() {
      Pass judged = judgedPass();
      return judged.pairRatios().isEmpty()
          ? "median of " + judged.raw().passRates().size() + " passes"
          : "median of " + judged.pairRatios().size() + " pairs";
    }

    /** How {@link #judgedRatio} was measured, for a report. */
    public String judgedOn() {
      Pass judged = judgedPass();
      return (separateCores != null ? "Elasticsearch on a core of its own" : "shared cores")
          + (judged.steadyRatio().isPresent() ? ", after warm-up" : ", whole load");
    }
  }

  public static Result run(LocalStack stack, int products, int rounds) throws Exception {
    return run(stack, products, rounds, 1);
  }

  /** The same, weir's job at {@code parallelism}. */
  public static Result run(LocalStack stack, int products, int rounds, int parallelism)
      throws Exception {
    return run(stack, products, rounds, parallelism, CatalogLoader.DEFAULT_DESCRIPTION_CHARS);
  }

  /** The same, with descriptions of about {@code descriptionChars} characters. */
  public static Result run(
      LocalStack stack, int products, int rounds, int parallelism, int descriptionChars)
      throws Exception {
    Connections connections = stack.up();
    stack.ensurePostgresDatabase(CATALOG);
    WeirConfig first = config(stack, connections, parallelism, "bench_search_first", FIRST_ALIAS);
    WeirConfig config = config(stack, connections, parallelism, "bench_search_weir", ALIAS);
    CatalogCaptureJob.dropSlot(config);
    stack.recreatePostgresDatabase(CATALOG);
    // The definition is planned against the catalog's tables: they come first.
    CatalogLoader.createTables(config, config.get(DocumentOptions.CATALOG_URL));
    DocumentPlan plan = Definitions.plans(config).get(0);
    DocumentCopy copy = new DocumentCopy(plan);
    String mapping = new DocumentIndex(plan).mapping();
    KafkaTopics.deleteTopics(config, SearchIndexJob.inputs(config));
    SearchCluster es = ElasticsearchConnection.cluster(config);
    try {
      // Every index of an earlier run, behind the three aliases (the job makes its own, <alias>-v1,
      // only where the alias is missing) or the raw bulk's: each pass starts on an empty alias.
      BenchEnvironment.deleteIndices(es, ALIAS + "*");
      // 1. The catalog, captured into Kafka.
      CatalogLoader loader = new CatalogLoader(7, descriptionChars);
      String pricing = config.get(DocumentOptions.PRICING_TOPIC);
      loader.load(
          config, config.get(DocumentOptions.CATALOG_URL), pricing, products, 50, 0, Duration.ZERO);
      capture(config, products);

      // 2. End to end, then the raw bulk of the same documents: twice. The first job of this
      // JVM also compiles its code, and the first load of a fresh Elasticsearch compiles
      // Elasticsearch's: a deployment pays that once, so the second pass is the one compared.
      // Later loads follow one that settled (IndexLoad.settle).
      BenchEnvironment.awaitMergesDone(es);
      Pass cold = pass(stack, es, mapping, first, products, "weir, the first job of a fresh JVM");
      BenchEnvironment.forgetOffsets(config, SearchIndexJob.NAME);
      long submitted = System.nanoTime();
      JobClient job = JobRunner.start(new SearchIndexJob(), BenchEnvironment.miniCluster(), config);
      try {
        BenchEnvironment.awaitRunning(job);
        long running = System.nanoTime();
        CpuUse cpu = CpuUse.start(stack);
        double jobStart = (running - submitted) / 1e9;
        IndexLoad weir;
        try (IndexProgress progress = IndexProgress.watch(es, ALIAS)) {
          weir =
              IndexLoad.timed(
                  "weir: Kafka → join → product_document + Elasticsearch",
                  products,
                  running,
                  progress,
                  cpu,
                  es,
                  ALIAS);
        }
        weir = weir.settle(es, ALIAS, cpu);
        List<String> seeded = CopyRows.asJson(config, copy);

        // 3. Price-only changes through the job, round after round.
        CopyWrites weirWrites;
        List<List<String>> afterEachRound = new ArrayList<>();
        try (Connection c = PostgresConnectionProvider.open(config)) {
          TableStats before = TableStats.read(c, copy.table());
          c.createStatement().execute("CHECKPOINT");
          String wal = TableStats.walPosition(c);
          long version = System.currentTimeMillis() + 1_000_000;
          for (int round = 0; round < rounds; round++) {
            version++;
            Map<String, Long> held = CopyRows.versions(c, copy);
            try (EventProducer producer = new EventProducer(config)) {
              for (long id = 1; id <= products; id++) {
                producer.send(
                    pricing,
                    Long.toString(id).getBytes(StandardCharsets.UTF_8),
                    loader.price(id, version));
              }
              producer.flush();
            }
            BenchEnvironment.awaitCount(() -> CopyRows.newer(c, copy, held), products);
            afterEachRound.add(CopyRows.asJson(config, copy));
          }
          long walBytes = TableStats.walBytesSince(c, wal);
          List<WalRecords> records = WalRecords.between(c, wal, TableStats.walPosition(c));
          // The job's connections report their counts when they close (an idle one may wait).
          job.cancel().get();
          job = null;
          TableStats written = TableStats.read(c, copy.table()).minus(before);
          weirWrites =
              new CopyWrites(
                  "weir: only the changed columns",
                  (long) products * rounds,
                  walBytes,
                  written.updated(),
                  written.toastInserted(),
                  records);
        }
        List<IndexedDocument> documents = IndexedDocument.readAll(es, ALIAS);
        IndexLoad raw = RawBulk.timedPasses(stack, es, mapping, documents, ALIAS + "-raw");
        CopyWrites naive = NaiveUpserts.write(stack, connections, copy, seeded, afterEachRound);
        Pass separate =
            separateCores(
                stack,
                es,
                mapping,
                () -> config(stack, connections, parallelism, "bench_search_cores", CORES_ALIAS),
                products);
        return new Result(
            products, descriptionChars, cold, weir, raw, separate, weirWrites, naive, jobStart);
      } finally {
        if (job != null) {
          job.cancel().get();
        }
      }
    } finally {
      CatalogCaptureJob.dropSlot(config);
      es.close();
    }
  }

  /**
   * Runs cdc-catalog until the product topic holds the snapshot, then stops it with a savepoint: it
   * writes exactly once, so its last records become visible only when that commits. Not measured.
   */
  private static void capture(WeirConfig config, int products) throws Exception {
    JobClient capture =
        JobRunner.start(new CatalogCaptureJob(), BenchEnvironment.miniCluster(), config);
    String topic = CatalogCaptureJob.topic(config, "product");
    try (var admin = KafkaClients.admin(config)) {
      BenchEnvironment.awaitCount(() -> KafkaTopics.endOffsets(admin, topic), products);
    }
    capture
        .stopWithSavepoint(
            false,
            Files.createTempDirectory("weir-bench-savepoint").toUri().toString(),
            SavepointFormatType.CANONICAL)
        .get();
  }

  /** The benchmark's settings for one run of the job: its own copy database and alias. */
  private static WeirConfig config(
      LocalStack stack, Connections connections, int parallelism, String copy, String alias) {
    return CaptureOptions.ownCatalog(
            BenchEnvironment.freshDatabase(stack, connections, copy),
            connections.postgresJdbcUrl(CATALOG),
            CATALOG,
            "bench",
            alias)
        .with(WeirOptions.PARALLELISM, Integer.toString(parallelism));
  }

  /**
   * One end-to-end pass: the job on {@code config} (its own copy database and alias) from the start
   * of the topics until every document is searchable, then the raw bulk of its documents.
   */
  private static Pass pass(
      LocalStack stack,
      SearchCluster es,
      String mapping,
      WeirConfig config,
      int products,
      String name)
      throws Exception {
    IndexLoad weir = weirLoad(stack, es, config, products, name);
    String alias = config.get(DocumentOptions.ALIAS);
    IndexLoad raw =
        RawBulk.timedPasses(stack, es, mapping, IndexedDocument.readAll(es, alias), alias + "-raw");
    return new Pass(weir, raw);
  }

  /**
   * The job on {@code config} from the start of the topics until every document is searchable
   * behind its alias.
   */
  private static IndexLoad weirLoad(
      LocalStack stack, SearchCluster es, WeirConfig config, int products, String name)
      throws Exception {
    BenchEnvironment.forgetOffsets(config, SearchIndexJob.NAME);
    String alias = config.get(DocumentOptions.ALIAS);
    JobClient job = JobRunner.start(new SearchIndexJob(), BenchEnvironment.miniCluster(), config);
    try {
      BenchEnvironment.awaitRunning(job);
      long running = System.nanoTime();
      CpuUse cpu = CpuUse.start(stack);
      IndexLoad weir;
      try (IndexProgress progress = IndexProgress.watch(es, alias)) {
        weir = IndexLoad.timed(name, products, running, progress, cpu, es, alias);
      }
      return weir.settle(es, alias, cpu);
    } finally {
      job.cancel().get();
    }
  }

  /**
   * Pairs with Elasticsearch on a core of its own, the judged ratio's: one pass on this shared
   * machine is noisy, and the host's speed drifts over the minutes of the step, so each pair runs
   * weir's side and right after it the raw bulk of the same documents, and the median pair's ratio
   * is compared.
   */
  static final int SEPARATE_CORES_PAIRS = 5;

  /**
   * Elasticsearch on core 0 and the other services and this JVM (weir's job, the bulk client) on
   * the rest, for both sides: the ratio where the job's work does not take Elasticsearch's CPU, as
   * with nodes of its own. {@link #SEPARATE_CORES_PAIRS} pairs, each weir's job on a fresh copy
   * database ({@code freshConfig}) and index, then one raw bulk of the documents it indexed; the
   * median pair ({@link Pass#median}). Null on a single core or without taskset.
   */
  private static Pass separateCores(
      LocalStack stack,
      SearchCluster es,
      String mapping,
      Supplier<WeirConfig> freshConfig,
      int products)
      throws Exception {
    if (!ElasticsearchCore.possible()) {
      return null;
    }
    return ElasticsearchCore.run(
        stack,
        () -> {
          List<Pass> pairs = new ArrayList<>();
          for (int pair = 0; pair < SEPARATE_CORES_PAIRS; pair++) {
            BenchEnvironment.deleteIndices(es, CORES_ALIAS + "*");
            BenchEnvironment.awaitMergesDone(es);
            IndexLoad weir =
                weirLoad(
                    stack,
                    es,
                    freshConfig.get(),
                    products,
                    "weir, Elasticsearch on a core of its own");
            IndexLoad raw =
                RawBulk.timedPasses(
                    stack,
                    es,
                    mapping,
                    IndexedDocument.readAll(es, CORES_ALIAS),
                    CORES_ALIAS + "-raw",
                    1);
            pairs.add(new Pass(weir, raw));
          }
          return Pass.median(pairs);
        });
  }
}
