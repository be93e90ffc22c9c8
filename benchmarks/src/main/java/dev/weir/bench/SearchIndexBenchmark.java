package dev.weir.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

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
 *       core: {@value #RAW_BULK_PASSES} passes, the median one compared. Each side also reports the
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
   * A timed load, and the CPU seconds each process of the machine used meanwhile.
   *
   * @param steadyCpu the CPU seconds each process used after the warm-up, from the moment the first
   *     fifth was counted (within one poll, 0.1 s) until the last
   * @param passRates where this is the median of several passes of the same load ({@link #median}):
   *     every pass's documents/s over its whole load, in the order run; else empty
   */
  public record Load(
      String name,
      long documents,
      double seconds,
      long steadyDocuments,
      double steadySeconds,
      Map<String, Double> cpu,
      Map<String, Double> steadyCpu,
      IndexWork elasticsearch,
      Settled settled,
      List<Double> passRates) {
    double documentsPerSecond() {
      return documents / seconds;
    }

    /**
     * The pass of {@code passes} with the median documents/s after warm-up where every pass
     * measured it, else over the whole load (the pass whole: its timelines, CPU and index stats
     * belong together), carrying every pass's documents/s over its whole load for the range.
     */
    static Load median(List<Load> passes) {
      Load m =
          BenchAll.median(
              passes,
              medianBySteadyRate(passes)
                  ? Load::steadyDocumentsPerSecond
                  : Load::documentsPerSecond);
      return new Load(
          m.name,
          m.documents,
          m.seconds,
          m.steadyDocuments,
          m.steadySeconds,
          m.cpu,
          m.steadyCpu,
          m.elasticsearch,
          m.settled,
          passes.stream().map(Load::documentsPerSecond).toList());
    }

    private static boolean medianBySteadyRate(List<Load> passes) {
      return passes.stream().allMatch(Load::steadyMeasured);
    }

    /**
     * How the rate was measured, for a report: "median of 3 passes after warm-up, whole loads
     * 644–997/s", or where chosen by the whole loads "median of 3 passes, range 644–997/s".
     */
    String passesSummary() {
      return steadyMeasured()
          ? String.format(
              Locale.ROOT,
              "median of %d passes after warm-up, whole loads %s",
              passRates.size(),
              range())
          : String.format(Locale.ROOT, "median of %d passes, range %s", passRates.size(), range());
    }

    /** The lowest and the highest documents/s of the passes: "644–997/s". */
    String range() {
      return span(passRates, "%,.0f") + "/s";
    }

    /** After the warm-up (the first fifth of the documents applied), as identity's benchmark. */
    double steadyDocumentsPerSecond() {
      return steadyDocuments / steadySeconds;
    }

    /**
     * Whether the stretch after warm-up is long enough to measure: a bulk takes Elasticsearch up to
     * a second, so over a shorter stretch the count mostly measures where bulks ended.
     */
    boolean steadyMeasured() {
      return steadySeconds >= MIN_STEADY_SECONDS;
    }

    /**
     * A load followed by {@code progress} from {@code startNanos} until a search counted {@code
     * documents}, with what Elasticsearch had done for {@code index} by then. Its stretch after
     * warm-up runs from the moment Elasticsearch had applied the first fifth of the documents until
     * it had applied the last ({@link IndexProgress}: not where refreshes fell). Called while the
     * load runs: it meters the CPU of that stretch as it passes.
     */
    static Load timed(
        String name,
        long documents,
        long startNanos,
        IndexProgress progress,
        CpuUse cpu,
        SearchCluster es,
        String index)
        throws Exception {
      CountTimeline.Sample warm = progress.applied.await(documents / 5, Duration.ofMinutes(3));
      CpuUse afterWarmUp = cpu.restart();
      CountTimeline.Sample applied = progress.applied.await(documents, Duration.ofMinutes(3));
      Map<String, Double> steadyCpuSeconds = afterWarmUp.seconds();
      CountTimeline.Sample done = progress.searchable.await(documents, Duration.ofMinutes(3));
      Map<String, Double> cpuSeconds = cpu.seconds();
      IndexWork atEnd = IndexWork.read(es, index);
      return new Load(
          name,
          documents,
          (done.nanoTime() - startNanos) / 1e9,
          steadyDocuments(documents, warm.count(), progress.applied.latest()),
          (applied.nanoTime() - warm.nanoTime()) / 1e9,
          cpuSeconds,
          steadyCpuSeconds,
          atEnd,
          null,
          List.of());
    }

    /**
     * The documents of a stretch after warm-up that began at {@code warmOperations} applied and
     * ended at {@code documents} applied, of a load that applied {@code operations} in all. A side
     * that indexed some documents more than once (a document revised while the load ran) reached as
     * many operations as documents before its last document: its stretch holds its operations'
     * share of the documents, not more.
     */
    static long steadyDocuments(long documents, long warmOperations, long operations) {
      double documentsPerOperation = (double) documents / Math.max(documents, operations);
      return Math.round((documents - warmOperations) * documentsPerOperation);
    }

    /**
     * This load with what Elasticsearch did until the merges it left were done: a load that ends
     * sooner leaves more of its segments to merge after its window. Leaves Elasticsearch idle for
     * the next load.
     */
    Load settle(SearchCluster es, String index, CpuUse meter) throws Exception {
      Thread.sleep(1000); // the last refresh (once a second) may still have a merge to schedule
      awaitMergesDone(es);
      Settled s =
          new Settled(
              IndexWork.read(es, index), meter.seconds().getOrDefault(ELASTICSEARCH, Double.NaN));
      return new Load(
          name,
          documents,
          seconds,
          steadyDocuments,
          steadySeconds,
          cpu,
          steadyCpu,
          elasticsearch,
          s,
          passRates);
    }
  }

  /**
   * What Elasticsearch had done for a load once no merge ran any more (awaited after the load), and
   * the CPU seconds it used from the load's start until then.
   */
  public record Settled(IndexWork work, double elasticsearchCpuSeconds) {}

  /** Elasticsearch's name among the {@link CpuUse} processes (the local stack's service name). */
  static final String ELASTICSEARCH = "Elasticsearch";

  /**
   * Price-only changes written to a copy: WAL bytes, rows updated, TOAST tuples written, and the
   * WAL by record type.
   */
  public record Writes(
      String name,
      long changes,
      long walBytes,
      long rowsUpdated,
      long toast,
      List<WalRecords> records) {}

  /** The lowest and the highest of {@code values}, each in {@code format}: "644–997". */
  static String span(List<Double> values, String format) {
    double low = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double high = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return String.format(Locale.ROOT, format + "–" + format, low, high);
  }

  /**
   * One end-to-end pass: weir's job, then the raw bulk of the documents it indexed (its median
   * pass, {@link #rawBulk}).
   *
   * @param pairRatios where this is the median of several pairs ({@link #median}): every pair's
   *     ratio, in the order run; else empty
   * @param pairsAfterWarmUp whether those ratios are after warm-up (every pair measured it) rather
   *     than over the whole loads
   */
  public record Pass(Load weir, Load raw, List<Double> pairRatios, boolean pairsAfterWarmUp) {
    public Pass(Load weir, Load raw) {
      this(weir, raw, List.of(), false);
    }

    /**
     * The pair of {@code pairs} with the median ratio, after warm-up where every pair measured it,
     * else over the whole load (the pair whole: both sides' CPU and index stats belong to it),
     * carrying every pair's ratio for the range.
     */
    static Pass median(List<Pass> pairs) {
      boolean steady = pairs.stream().allMatch(p -> p.steadyRatio().isPresent());
      ToDoubleFunction<Pass> ratio = p -> steady ? p.steadyRatio().orElseThrow() : p.ratio();
      Pass m = BenchAll.median(pairs, ratio);
      return new Pass(m.weir, m.raw, pairs.stream().mapToDouble(ratio).boxed().toList(), steady);
    }

    /**
     * How the pair was chosen, for a report: "the median of 5 pairs after warm-up, ratios
     * 0.85–0.98".
     */
    String pairsSummary() {
      return String.format(
          Locale.ROOT,
          "the median of %d pairs%s, ratios %s",
          pairRatios.size(),
          steadyRatio().isPresent() ? " after warm-up" : "",
          span(pairRatios, "%.2f"));
    }

    public double ratio() {
      return weir.documentsPerSecond() / raw.documentsPerSecond();
    }

    /**
     * The same after each side's warm-up, where both were long enough to measure; for the median of
     * pairs, only where it was chosen by that (every pair measured it).
     */
    public Optional<Double> steadyRatio() {
      boolean chosenByWholeLoads = !pairRatios.isEmpty() && !pairsAfterWarmUp;
      if (chosenByWholeLoads || !weir.steadyMeasured() || !raw.steadyMeasured()) {
        return Optional.empty();
      }
      return Optional.of(weir.steadyDocumentsPerSecond() / raw.steadyDocumentsPerSecond());
    }
  }

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
      Load weir,
      Load raw,
      Pass separateCores,
      Writes weirWrites,
      Writes naiveWrites,
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

  static final double MIN_STEADY_SECONDS = 5;

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
      deleteIndices(es, ALIAS + "*");
      // 1. The catalog, captured into Kafka.
      CatalogLoader loader = new CatalogLoader(7, descriptionChars);
      String pricing = config.get(DocumentOptions.PRICING_TOPIC);
      loader.load(
          config, config.get(DocumentOptions.CATALOG_URL), pricing, products, 50, 0, Duration.ZERO);
      capture(config, products);

      // 2. End to end, then the raw bulk of the same documents: twice. The first job of this
      // JVM also compiles its code, and the first load of a fresh Elasticsearch compiles
      // Elasticsearch's: a deployment pays that once, so the second pass is the one compared.
      awaitMergesDone(es); // later loads follow one that settled (Load.settle)
      Pass cold = pass(stack, es, mapping, first, products, "weir, the first job of a fresh JVM");
      forgetOffsets(config);
      long submitted = System.nanoTime();
      JobClient job = JobRunner.start(new SearchIndexJob(), environment(), config);
      try {
        awaitRunning(job);
        long running = System.nanoTime();
        CpuUse cpu = CpuUse.start(stack);
        double jobStart = (running - submitted) / 1e9;
        Load weir;
        try (IndexProgress progress = IndexProgress.watch(es, ALIAS)) {
          weir =
              Load.timed(
                  "weir: Kafka → join → product_document + Elasticsearch",
                  products,
                  running,
                  progress,
                  cpu,
                  es,
                  ALIAS);
        }
        weir = weir.settle(es, ALIAS, cpu);
        List<String> seeded = rows(config, copy);

        // 3. Price-only changes through the job, round after round.
        Writes weirWrites;
        List<List<String>> afterEachRound = new ArrayList<>();
        try (Connection c = PostgresConnectionProvider.open(config)) {
          TableStats before = TableStats.read(c, copy.table());
          c.createStatement().execute("CHECKPOINT");
          String wal = TableStats.walPosition(c);
          long version = System.currentTimeMillis() + 1_000_000;
          for (int round = 0; round < rounds; round++) {
            version++;
            Map<String, Long> held = versions(c, copy);
            try (EventProducer producer = new EventProducer(config)) {
              for (long id = 1; id <= products; id++) {
                producer.send(
                    pricing,
                    Long.toString(id).getBytes(StandardCharsets.UTF_8),
                    loader.price(id, version));
              }
              producer.flush();
            }
            awaitCount(() -> newer(c, copy, held), products);
            afterEachRound.add(rows(config, copy));
          }
          long walBytes = TableStats.walBytesSince(c, wal);
          List<WalRecords> records = WalRecords.between(c, wal, TableStats.walPosition(c));
          // The job's connections report their counts when they close (an idle one may wait 10 s).
          job.cancel().get();
          job = null;
          TableStats written = TableStats.read(c, copy.table()).minus(before);
          weirWrites =
              new Writes(
                  "weir: only the changed columns",
                  (long) products * rounds,
                  walBytes,
                  written.updated(),
                  written.toastInserted(),
                  records);
        }
        List<Indexed> documents = documents(es, ALIAS);
        Load raw = rawBulk(stack, es, mapping, documents, ALIAS + "-raw");
        Writes naive = naiveUpserts(stack, connections, copy, seeded, afterEachRound);
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
    JobClient capture = JobRunner.start(new CatalogCaptureJob(), environment(), config);
    String topic = CatalogCaptureJob.topic(config, "product");
    try (var admin = KafkaClients.admin(config)) {
      awaitCount(() -> KafkaTopics.endOffsets(admin, topic), products);
    }
    capture
        .stopWithSavepoint(
            false,
            java.nio.file.Files.createTempDirectory("weir-bench-savepoint").toUri().toString(),
            org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
        .get();
  }

  /** The benchmark's settings for one run of the job: its own copy database and alias. */
  private static WeirConfig config(
      LocalStack stack, Connections connections, int parallelism, String copy, String alias) {
    return CaptureOptions.ownCatalog(
            BenchDatabases.fresh(stack, connections, copy),
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
    Load weir = weirLoad(stack, es, config, products, name);
    String alias = config.get(DocumentOptions.ALIAS);
    Load raw = rawBulk(stack, es, mapping, documents(es, alias), alias + "-raw");
    return new Pass(weir, raw);
  }

  /**
   * The job on {@code config} from the start of the topics until every document is searchable
   * behind its alias.
   */
  private static Load weirLoad(
      LocalStack stack, SearchCluster es, WeirConfig config, int products, String name)
      throws Exception {
    forgetOffsets(config);
    String alias = config.get(DocumentOptions.ALIAS);
    JobClient job = JobRunner.start(new SearchIndexJob(), environment(), config);
    try {
      awaitRunning(job);
      long running = System.nanoTime();
      CpuUse cpu = CpuUse.start(stack);
      Load weir;
      try (IndexProgress progress = IndexProgress.watch(es, alias)) {
        weir = Load.timed(name, products, running, progress, cpu, es, alias);
      }
      return weir.settle(es, alias, cpu);
    } finally {
      job.cancel().get();
    }
  }

  private static void deleteIndices(SearchCluster es, String pattern) throws IOException {
    for (String index : es.indices(pattern)) {
      es.deleteIndex(index);
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
            deleteIndices(es, CORES_ALIAS + "*");
            awaitMergesDone(es);
            Load weir =
                weirLoad(
                    stack,
                    es,
                    freshConfig.get(),
                    products,
                    "weir, Elasticsearch on a core of its own");
            Load raw =
                rawBulk(stack, es, mapping, documents(es, CORES_ALIAS), CORES_ALIAS + "-raw", 1);
            pairs.add(new Pass(weir, raw));
          }
          return Pass.median(pairs);
        });
  }

  /**
   * Waits (two minutes at most) until Elasticsearch has no merge running: each side's load starts
   * on an idle node, not paying for the segments the step before it left to merge (every load ends
   * with this wait in {@link Load#settle}; the raw bulk also waits for it, as it may follow weir's
   * price rounds).
   */
  static void awaitMergesDone(SearchCluster es) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline
        && IndexWork.runningMerges(es.get("/_stats/merge").path("_all").path("total")) > 0) {
      Thread.sleep(200);
    }
  }

  /** The job's consumer group forgotten, so that its next run reads the topics from the start. */
  static void forgetOffsets(WeirConfig config) throws Exception {
    try (var admin = KafkaClients.admin(config)) {
      admin.deleteConsumerGroups(List.of(DeploymentNames.groupId(SearchIndexJob.NAME))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof GroupIdNotFoundException)) {
        throw e; // no group: no offsets committed, nothing to forget
      }
    }
  }

  static StreamExecutionEnvironment environment() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }

  /** A document as the engine holds it: id, version, source (JSON). */
  record Indexed(String id, long version, byte[] source) {}

  static List<Indexed> documents(SearchCluster es, String index) throws Exception {
    List<Indexed> documents = new ArrayList<>();
    JsonNode after = null;
    while (true) {
      ObjectNode search = Json.mapper().createObjectNode().put("size", 1000).put("version", true);
      search.putArray("sort").addObject().put("product_id", "asc");
      if (after != null) {
        search.set("search_after", after);
      }
      JsonNode hits = es.search(index, search).path("hits").path("hits");
      if (hits.isEmpty()) {
        return documents;
      }
      for (JsonNode hit : hits) {
        documents.add(
            new Indexed(
                hit.path("_id").asText(),
                hit.path("_version").asLong(),
                Json.mapper().writeValueAsBytes(hit.get("_source"))));
      }
      after = hits.get(hits.size() - 1).get("sort");
    }
  }

  /**
   * Passes of each raw bulk: one pass on this shared machine is noisy (the same raw bulk measured
   * 644/s in one run and 997/s in the next while weir's side did not move), so the ratios take the
   * median pass, as {@code bench load} does for the services' limits.
   */
  static final int RAW_BULK_PASSES = 3;

  /**
   * The same documents bulk-loaded by a plain client ({@link RawBulk}), one loader per core, into
   * an index made from {@code mapping} (the job's): {@link #RAW_BULK_PASSES} passes, each into a
   * fresh index on an idle node; the median pass ({@link Load#median}), with every pass's rate.
   */
  static Load rawBulk(
      LocalStack stack, SearchCluster es, String mapping, List<Indexed> documents, String index)
      throws Exception {
    return rawBulk(stack, es, mapping, documents, index, RAW_BULK_PASSES);
  }

  /** The same, {@code passCount} times: one pass is that pass itself, without a median. */
  static Load rawBulk(
      LocalStack stack,
      SearchCluster es,
      String mapping,
      List<Indexed> documents,
      String index,
      int passCount)
      throws Exception {
    int loaders = Runtime.getRuntime().availableProcessors();
    List<DocumentOperation> ops = new ArrayList<>();
    for (Indexed d : documents) {
      ops.add(DocumentOperation.index(index, d.id(), d.version(), d.source()));
    }
    List<Load> passes = new ArrayList<>();
    for (int pass = 0; pass < passCount; pass++) {
      RawBulk.createIndex(es, index, mapping); // the previous pass's index deleted
      awaitMergesDone(es);
      CpuUse cpu;
      Load raw;
      try (IndexProgress progress = IndexProgress.watch(es, index)) {
        cpu = CpuUse.start(stack);
        long start = System.nanoTime();
        // Sent in the background: Load.timed meters the CPU after warm-up while the load runs.
        CompletableFuture<Void> sending =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    RawBulk.send(es, index, ops, loaders);
                  } catch (Exception e) {
                    throw new CompletionException(e);
                  }
                });
        // Timed until searchable, as weir is.
        try {
          raw =
              Load.timed(
                  "raw bulk of the same documents ("
                      + loaders
                      + (loaders == 1 ? " loader)" : " loaders)"),
                  documents.size(),
                  start,
                  progress,
                  cpu,
                  es,
                  index);
        } finally {
          sending.join(); // a failed bulk is the reason the count never came
        }
      }
      passes.add(raw.settle(es, index, cpu));
    }
    return passes.size() == 1 ? passes.get(0) : Load.median(passes);
  }

  /**
   * A table made as weir's copy is ({@link DocumentCopy#migrate}), seeded with the rows weir's copy
   * had before the price changes, then the rows it has after them, written the plain way: every
   * column of every row upserted.
   */
  private static Writes naiveUpserts(
      LocalStack stack,
      Connections connections,
      DocumentCopy copy,
      List<String> seeded,
      List<List<String>> rounds)
      throws Exception {
    WeirConfig naive = BenchDatabases.fresh(stack, connections, "bench_search_naive");
    try (Connection c = PostgresConnectionProvider.open(naive)) {
      copy.migrate(c);
      upsertAll(c, copy, seeded);
      TableStats before = TableStats.read(c, copy.table());
      c.createStatement().execute("CHECKPOINT");
      String wal = TableStats.walPosition(c);
      for (List<String> round : rounds) {
        upsertAll(c, copy, round);
      }
      long walBytes = TableStats.walBytesSince(c, wal);
      List<WalRecords> records = WalRecords.between(c, wal, TableStats.walPosition(c));
      TableStats written = TableStats.read(c, copy.table()).minus(before);
      return new Writes(
          "plain full-row upsert",
          rounds.stream().mapToLong(List::size).sum(),
          walBytes,
          written.updated(),
          written.toastInserted(),
          records);
    }
  }

  /** The rows of the copy as JSON (one per row), by doc_id. */
  private static List<String> rows(WeirConfig config, DocumentCopy copy) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = PostgresConnectionProvider.open(config);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT row_to_json(d)::text FROM "
                    + copy.quotedTable()
                    + " d ORDER BY "
                    + DocumentPlan.DOC_ID)) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }

  /** INSERT … ON CONFLICT DO UPDATE SET every column, in batches of 500 per transaction. */
  private static void upsertAll(Connection c, DocumentCopy copy, List<String> rows)
      throws Exception {
    String set =
        String.join(
            ", ",
            copy.columns().stream()
                .filter(column -> !column.name().equals(DocumentPlan.DOC_ID))
                .map(column -> column.quoted() + " = excluded." + column.quoted())
                .toList());
    String sql =
        "INSERT INTO "
            + copy.quotedTable()
            + " SELECT * FROM json_populate_record(NULL::"
            + copy.quotedTable()
            + ", ?::json) ON CONFLICT ("
            + DocumentPlan.DOC_ID
            + ") DO UPDATE SET "
            + set;
    c.setAutoCommit(false);
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < rows.size(); i++) {
        s.setString(1, rows.get(i));
        s.addBatch();
        if ((i + 1) % 500 == 0 || i == rows.size() - 1) {
          s.executeBatch();
          c.commit();
        }
      }
    }
    c.setAutoCommit(true);
  }

  /** doc_id → doc_version of every document in the copy. */
  private static Map<String, Long> versions(Connection c, DocumentCopy copy) throws Exception {
    Map<String, Long> versions = new HashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT "
                    + DocumentPlan.DOC_ID
                    + ", "
                    + DocumentPlan.DOC_VERSION
                    + " FROM "
                    + copy.quotedTable())) {
      while (rs.next()) {
        versions.put(rs.getString(1), rs.getLong(2));
      }
    }
    return versions;
  }

  /**
   * How many documents the copy holds in a newer version than {@code held}: all of them once a
   * round's prices are written (the copy keeps no price version, but a document's version only
   * grows and a round changes every product's price). Compared here, not in SQL: a table of the
   * held versions would write WAL within the step measured.
   */
  private static long newer(Connection c, DocumentCopy copy, Map<String, Long> held)
      throws Exception {
    return versions(c, copy).entrySet().stream()
        .filter(d -> d.getValue() > held.getOrDefault(d.getKey(), Long.MAX_VALUE))
        .count();
  }

  static long count(SearchCluster es, String index) throws Exception {
    return es.count(index);
  }

  /** Until the job is RUNNING: scheduled, its tasks deploying. */
  static void awaitRunning(JobClient job) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (job.getJobStatus().get() != JobStatus.RUNNING) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the job is not RUNNING after a minute");
      }
      Thread.sleep(20);
    }
  }

  static void awaitCount(Callable<Long> count, long expected) throws Exception {
    try (CountTimeline timeline = new CountTimeline(count)) {
      timeline.await(expected, Duration.ofMinutes(3));
    }
  }

  /** Where each side's WAL went, by record type, per change (pg_walinspect). */
  private static String walBreakdown(Result r) {
    if (r.weirWrites().records().isEmpty()) {
      return "";
    }
    StringBuilder md =
        new StringBuilder("### Where the WAL goes, per change (pg_walinspect)\n\n")
            .append(
                "| record type | weir: records | weir: bytes | weir: of which page images"
                    + " | naive: records | naive: bytes | naive: of which page images |\n")
            .append("|---|---:|---:|---:|---:|---:|---:|\n");
    java.util.Map<String, WalRecords> weir = byType(r.weirWrites());
    java.util.Map<String, WalRecords> naive = byType(r.naiveWrites());
    java.util.Set<String> types = new java.util.LinkedHashSet<>();
    r.weirWrites().records().stream().limit(6).forEach(w -> types.add(w.type()));
    r.naiveWrites().records().stream().limit(4).forEach(w -> types.add(w.type()));
    double weirChanges = r.weirWrites().changes();
    double naiveChanges = r.naiveWrites().changes();
    for (String type : types) {
      WalRecords w = weir.get(type);
      WalRecords n = naive.get(type);
      md.append(
          String.format(
              "| %s | %.2f | %,.0f | %,.0f | %.2f | %,.0f | %,.0f |%n",
              type,
              w == null ? 0 : w.count() / weirChanges,
              w == null ? 0 : w.bytes() / weirChanges,
              w == null ? 0 : w.fullPageImageBytes() / weirChanges,
              n == null ? 0 : n.count() / naiveChanges,
              n == null ? 0 : n.bytes() / naiveChanges,
              n == null ? 0 : n.fullPageImageBytes() / naiveChanges));
    }
    md.append(
        String.format(
            "| all records | | %,.0f | %,.0f | | %,.0f | %,.0f |%n",
            total(r.weirWrites(), WalRecords::bytes) / weirChanges,
            total(r.weirWrites(), WalRecords::fullPageImageBytes) / weirChanges,
            total(r.naiveWrites(), WalRecords::bytes) / naiveChanges,
            total(r.naiveWrites(), WalRecords::fullPageImageBytes) / naiveChanges));
    md.append(
        "\nBytes include full-page images, written for the first change of a page after a checkpoint"
            + " (the first round follows a CHECKPOINT): the rest of weir's bytes are the floor of an"
            + " update of its row on this server, however seldom checkpoints come. The local"
            + " stack's one server has `wal_level = logical` (the captured catalog lives on it), and with"
            + " logical decoding on PostgreSQL logs an updated row's new version whole: weir's row without"
            + " its description, a few hundred bytes. Before updating a row that has an out-of-line (TOAST)"
            + " value PostgreSQL also logs a lock record (`Heap/LOCK`: heap_update lets go of the page"
            + " while it looks at the TOAST values). Those two are the floor of an in-place update here,"
            + " so the ratio to the full-row upsert grows with the size of the large value, not with"
            + " anything weir could leave out.\n\n");
    return md.toString();
  }

  private static long total(Writes writes, java.util.function.ToLongFunction<WalRecords> bytes) {
    return writes.records().stream().mapToLong(bytes).sum();
  }

  private static java.util.Map<String, WalRecords> byType(Writes writes) {
    java.util.Map<String, WalRecords> byType = new java.util.HashMap<>();
    writes.records().forEach(w -> byType.put(w.type(), w));
    return byType;
  }

  /** The results as Markdown, with the command that made them. */
  public static String markdown(Result r, String command) {
    StringBuilder md = BenchReport.header("search-index benchmark", command);
    md.append(
            "the local stack (PostgreSQL with fsync off, one Elasticsearch node). Input: a catalog of ")
        .append(String.format("%,d", r.products()))
        .append(
            String.format(
                " products (descriptions of ~%,d characters, TOASTed; 50 brands; 52 categories) and a"
                    + " price each, captured by cdc-catalog into Kafka before anything is timed.\n\n",
                r.descriptionChars()));
    md.append("## Price-only changes: what the copy writes\n\n");
    md.append(
        "Rounds of a new price for every product (the first round after a CHECKPOINT). weir's job writes them to `product_document`; the naive side"
            + " upserts the same final rows, every column (`INSERT … ON CONFLICT DO UPDATE SET` all), into a"
            + " table of the same shape seeded with the same rows. WAL is the server's `pg_current_wal_lsn()` difference over"
            + " the step, TOAST tuples are `n_tup_ins` of the table's TOAST table.\n\n");
    md.append(
        "| | changes | WAL bytes | WAL bytes / change | rows updated | TOAST tuples written |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (Writes w : new Writes[] {r.weirWrites(), r.naiveWrites()}) {
      md.append(
          String.format(
              "| %s | %,d | %,d | %,.0f | %,d | %,d |%n",
              w.name(),
              w.changes(),
              w.walBytes(),
              (double) w.walBytes() / w.changes(),
              w.rowsUpdated(),
              w.toast()));
    }
    double walRatio = (double) r.naiveWrites().walBytes() / r.weirWrites().walBytes();
    md.append(
        String.format(
            "%n- **%.0f× less WAL** than the full-row upsert; TOAST tuples written by"
                + " weir: **%d** (target 0: %s). The design's WAL target compares weir with a"
                + " hand-written UPDATE of just the changed columns: `bin/weir bench documents`"
                + " (search-index-documents.md).%n%n",
            walRatio, r.weirWrites().toast(), r.weirWrites().toast() == 0 ? "met" : "NOT met"));
    md.append(walBreakdown(r));
    md.append("## End to end: documents per second\n\n");
    md.append(
        "Two passes, each weir's job then the raw bulk of the documents it indexed. The first job of"
            + " a JVM compiles its code while it runs (the JIT), and a freshly started Elasticsearch"
            + " compiles its own: costs a deployment pays once, in its first minute. The second pass"
            + " runs the job again in the same JVM, on a fresh copy database and a fresh index, from"
            + " the start of the topics (its consumer group deleted), with Elasticsearch warmed by the"
            + " first pass, as it is for each raw bulk, which follows a weir run. The first pass"
            + " shows what a new deployment's first load looks like. The target is judged with"
            + " Elasticsearch on a core of its own, at steady state (below). Each raw bulk is"
            + " loaded "
            + RAW_BULK_PASSES
            + " times, each pass into a fresh index once Elasticsearch runs no merge (one pass on a"
            + " shared machine is noisy): its row, its ratios and its CPU and index stats below are"
            + " the median pass by documents/s after warm-up (over the whole load where a pass"
            + " was too short to measure it), the whole loads' range beside it. With"
            + " Elasticsearch on a core of its own the sides run in "
            + SEPARATE_CORES_PAIRS
            + " pairs, each weir's job on a fresh copy database and index and right after it one"
            + " raw bulk of the documents it indexed, and the pair with the median ratio is"
            + " compared.\n\n");
    md.append(
        "| pass | | documents | seconds | documents/s | after warm-up: documents/s |\n"
            + "|---|---|---:|---:|---:|---:|\n");
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {"first", r.first().weir()});
    rows.add(new Object[] {"first", r.first().raw()});
    rows.add(new Object[] {"second", r.weir()});
    rows.add(new Object[] {"second", r.raw()});
    if (r.separateCores() != null) {
      String label =
          r.separateCores().pairRatios().isEmpty()
              ? "separate cores"
              : "separate cores, the median pair";
      rows.add(new Object[] {label, r.separateCores().weir()});
      rows.add(new Object[] {label, r.separateCores().raw()});
    }
    for (Object[] row : rows) {
      Load l = (Load) row[1];
      md.append(
          String.format(
              "| %s | %s | %,d | %.1f | %,.0f | %s |%n",
              row[0],
              l.passRates().isEmpty() ? l.name() : l.name() + ": " + l.passesSummary(),
              l.documents(),
              l.seconds(),
              l.documentsPerSecond(),
              l.steadyMeasured() ? String.format("%,.0f", l.steadyDocumentsPerSecond()) : "—"));
    }
    double ratio = r.ratio();
    md.append(
        String.format(
            "%n- weir end to end / raw bulk (%s), second pass, shared cores: **%.2f** (reported,"
                + " not judged: bounded by Elasticsearch's share of the cores, below). First pass:"
                + " %.2f.%n",
            r.raw().passesSummary(), ratio, r.first().ratio()));
    if (r.separateCores() != null) {
      md.append(
          String.format(
              "- With Elasticsearch on a core of its own and the rest (weir's job or the bulk client,"
                  + " PostgreSQL, Kafka) on the other%s, on both sides (`taskset`; after the price"
                  + " changes; %s): %.2f over the whole load, %s after warm-up. That is"
                  + " where the job's work no longer takes Elasticsearch's CPU, as with"
                  + " Elasticsearch on nodes of its own.%n",
              Runtime.getRuntime().availableProcessors() > 2 ? "s" : "",
              r.separateCores().pairRatios().isEmpty()
                  ? "weir's side " + r.separateCores().weir().passesSummary()
                  : r.separateCores().pairsSummary(),
              r.separateCores().ratio(),
              r.separateCores().steadyRatio().map(v -> String.format("%.2f", v)).orElse("—")));
    }
    md.append(
        String.format(
            "- **Judged (%s): %s** (target ≥ 0.9: %s). %s. The"
                + " design judges throughput at steady state;"
                + " the whole load includes the job's first seconds (JIT compilation of a fresh"
                + " job) and is shown beside it.%n",
            r.judgedOn(),
            BenchReport.shown(r.judgedRatio(), 0.9, ""),
            r.judgedRatio() >= 0.9 ? "met" : "NOT met",
            r.judgedPass().pairRatios().isEmpty()
                ? "The raw bulk's side is its " + r.judgedPass().raw().passesSummary()
                : "It is "
                    + r.judgedPass().pairsSummary()
                    + ": each pair times the raw bulk right after weir's side, so a drift of the"
                    + " host's speed over the step's minutes falls on both sides of a ratio"));
    md.append(
        r.steadyRatio()
            .map(
                steady ->
                    String.format(
                        "- After warm-up (from the moment Elasticsearch had applied the first fifth"
                            + " of the documents until it had applied the last, by its indexing"
                            + " stats polled every 100 ms on both sides: a search's count moves only"
                            + " at refreshes, which took seconds under this load), second pass,"
                            + " shared cores: %.2f.%n",
                        steady))
            .orElse(
                String.format(
                    "- After warm-up: not measured, a side took under %.0f s after its first"
                        + " fifth (a bulk takes Elasticsearch up to a second).%n",
                    MIN_STEADY_SECONDS)));
    md.append(
        String.format(
            "- weir is timed from the moment its job is RUNNING (tasks deploying, Kafka reads, the join, the"
                + " copy in PostgreSQL, every document in Elasticsearch) until the alias counts every"
                + " product; the raw bulk from its first request until the index counts every document."
                + " Before RUNNING, the job took %.1f s to start (migrations, the alias, the MiniCluster,"
                + " scheduling): once per deployment, like the raw side's client, so in neither time."
                + " The raw bulk sends the documents weir indexed (read back from its index), with their"
                + " versions. Each side starts once Elasticsearch runs no merge (the load or the price"
                + " changes before it leave segments to merge).%n",
            r.jobStartSeconds()));
    md.append(cpuTable(r));
    if (r.separateCores() != null) {
      md.append(separateCoresTable(r.separateCores()));
    }
    md.append(elasticsearchTable(r));
    return md.toString();
  }

  /**
   * The judged pass by core: how busy Elasticsearch's core and the other were in each side's timed
   * window. Where weir's side keeps Elasticsearch's core less busy than the raw bulk does, this
   * says whether its own core was full (its work bounds it) or not (it waits between bulks).
   */
  private static String separateCoresTable(Pass p) {
    if (p.weir().cpu().isEmpty() || p.raw().cpu().getOrDefault(ELASTICSEARCH, 0.0) <= 0) {
      return "";
    }
    boolean steady = p.steadyRatio().isPresent();
    Stretch weirStretch = Stretch.of(p.weir(), steady);
    Stretch rawStretch = Stretch.of(p.raw(), steady);
    Map<String, Double> weir = weirStretch.cpu();
    Map<String, Double> raw = rawStretch.cpu();
    int others = Runtime.getRuntime().availableProcessors() - 1;
    String plural = others > 1 ? "s" : "";
    StringBuilder md =
        new StringBuilder(
            String.format(
                "%n### The judged pass, by core%n%nCPU seconds each process used in each side's"
                    + " %s, with Elasticsearch on core 0 and the rest on the other%s (%s), and"
                    + " how busy each side kept the cores: CPU seconds over the window's"
                    + " seconds.%n%n"
                    + "| process | weir | raw bulk |%n|---|---:|---:|%n",
                steady ? "stretch after warm-up (the judged one)" : "whole load",
                plural,
                p.pairRatios().isEmpty() ? "each side's median pass" : "the median pair"));
    CpuUse.appendRows(md, weir, raw);
    Busy weirBusy = weirStretch.busy(others);
    Busy rawBusy = rawStretch.busy(others);
    md.append(
        String.format(
            "| Elasticsearch's core busy | %.0f %% | %.0f %% |%n",
            100 * weirBusy.elasticsearch(), 100 * rawBusy.elasticsearch()));
    md.append(
        String.format(
            "| the other core%s busy | %.0f %% | %.0f %% |%n",
            plural, 100 * weirBusy.rest(), 100 * rawBusy.rest()));
    if (steady) {
      Busy weirWhole = Stretch.of(p.weir(), false).busy(others);
      Busy rawWhole = Stretch.of(p.raw(), false).busy(others);
      md.append(
          String.format(
              "| over the whole load: Elasticsearch's core busy | %.0f %% | %.0f %% |%n"
                  + "| over the whole load: the other core%s busy | %.0f %% | %.0f %% |%n",
              100 * weirWhole.elasticsearch(),
              100 * rawWhole.elasticsearch(),
              plural,
              100 * weirWhole.rest(),
              100 * rawWhole.rest()));
    }
    md.append(
        String.format(
            "%n- Per 1,000 documents Elasticsearch used %.2f CPU s on weir's side, %.2f on the raw"
                + " bulk's; weir's side kept its core %.0f %% as busy as the raw bulk did, while"
                + " weir's own work (job, PostgreSQL, Kafka) kept the other core%s %.0f %% busy.%n",
            weir.getOrDefault(ELASTICSEARCH, 0.0) * 1000 / weirStretch.documents(),
            raw.getOrDefault(ELASTICSEARCH, 0.0) * 1000 / rawStretch.documents(),
            100 * weirBusy.elasticsearch() / rawBusy.elasticsearch(),
            plural,
            100 * weirBusy.rest()));
    if (steady) {
      md.append(
          "- Over the whole load weir's side starts by reading: the join holds a document until"
              + " every table's topic has been read past the change that made it, and a"
              + " snapshot's rows carry no commit time (Debezium's source.ts_ms is 0), so the"
              + " first documents wait until the snapshot is read, and Elasticsearch with them.\n");
    }
    return md.toString();
  }

  /** A stretch of a load: after its warm-up, or the whole of it. */
  private record Stretch(Map<String, Double> cpu, double seconds, long documents) {
    static Stretch of(Load load, boolean afterWarmUp) {
      return afterWarmUp
          ? new Stretch(load.steadyCpu(), load.steadySeconds(), load.steadyDocuments())
          : new Stretch(load.cpu(), load.seconds(), load.documents());
    }

    /** How busy it kept Elasticsearch's core and the {@code otherCores}. */
    Busy busy(int otherCores) {
      double es = cpu.getOrDefault(ELASTICSEARCH, 0.0);
      return new Busy(es / seconds, (CpuUse.total(cpu) - es) / (otherCores * seconds));
    }
  }

  private record Busy(double elasticsearch, double rest) {}

  /** What Elasticsearch did on each side of the second pass, from the indices' stats. */
  private static String elasticsearchTable(Result r) {
    Load weir = r.weir();
    Load raw = r.raw();
    if (weir.settled() == null || raw.settled() == null) {
      return "";
    }
    StringBuilder md =
        new StringBuilder(
            String.format(
                "%n### What Elasticsearch did%n%nEach side's index in the second pass (the raw"
                    + " bulk's median pass), from its index stats at the end of the timed window"
                    + " and once no merge ran any more (awaited after it). Times are the time Elasticsearch's threads spent, not"
                    + " CPU.%n%n| | weir | raw bulk |%n|---|---:|---:|%n"));
    elasticsearchRow(md, "index operations", weir, raw, w -> String.format("%,d", w.indexed()));
    elasticsearchRow(md, "… of which failed", weir, raw, w -> String.format("%,d", w.failed()));
    elasticsearchRow(md, "bulk requests", weir, raw, w -> String.format("%,d", w.bulkRequests()));
    elasticsearchRow(
        md, "indexing, s", weir, raw, w -> String.format("%.1f", w.indexMillis() / 1e3));
    elasticsearchRow(
        md,
        "refreshes (s)",
        weir,
        raw,
        w -> String.format("%,d (%.1f)", w.refreshes(), w.refreshMillis() / 1e3));
    elasticsearchRow(md, "merges done in the window (s)", weir, raw, SearchIndexBenchmark::merges);
    md.append(
        String.format(
            "| merges done until none ran (s) | %s | %s |%n",
            merges(weir.settled().work()), merges(raw.settled().work())));
    elasticsearchRow(
        md,
        "searches (the count polled every 100 ms)",
        weir,
        raw,
        w -> String.format("%,d", w.queries()));
    md.append(
        String.format(
            "| Elasticsearch CPU s in the window | %.1f | %.1f |%n",
            weir.cpu().getOrDefault(ELASTICSEARCH, 0.0),
            raw.cpu().getOrDefault(ELASTICSEARCH, 0.0)));
    md.append(
        String.format(
            "| Elasticsearch CPU s until no merge ran | %.1f | %.1f |%n",
            weir.settled().elasticsearchCpuSeconds(), raw.settled().elasticsearchCpuSeconds()));
    md.append(
        String.format(
            "%n- Elasticsearch's CPU per 1,000 documents, counted until no merge ran (so that"
                + " merges a side left behind are in its count): %.2f s for weir, %.2f s for the raw"
                + " bulk.%n",
            weir.settled().elasticsearchCpuSeconds() * 1000 / weir.documents(),
            raw.settled().elasticsearchCpuSeconds() * 1000 / raw.documents()));
    return md.toString();
  }

  private static void elasticsearchRow(
      StringBuilder md,
      String what,
      Load weir,
      Load raw,
      java.util.function.Function<IndexWork, String> value) {
    md.append(
        String.format(
            "| %s | %s | %s |%n",
            what, value.apply(weir.elasticsearch()), value.apply(raw.elasticsearch())));
  }

  private static String merges(IndexWork w) {
    return String.format("%,d (%.1f)", w.merges(), w.mergeMillis() / 1e3);
  }

  /** Where each side's seconds went, in CPU seconds by process (none where /proc is missing). */
  private static String cpuTable(Result r) {
    Map<String, Double> weir = r.weir().cpu();
    Map<String, Double> raw = r.raw().cpu();
    if (weir.isEmpty() || raw.isEmpty()) {
      return "";
    }
    int cores = Runtime.getRuntime().availableProcessors();
    StringBuilder md =
        new StringBuilder(
            String.format(
                "%n### Where the cores went%n%nCPU seconds each process used during each side's"
                    + " timed window of the second pass, the raw bulk's in its median pass (Linux"
                    + " /proc; a service's process tree). The benchmark JVM is weir's job"
                    + " (MiniCluster) on weir's side, the bulk client on the raw side.%n%n"
                    + "| process | weir | raw bulk |%n|---|---:|---:|%n"));
    CpuUse.appendRows(md, weir, raw);
    double weirTotal = CpuUse.total(weir);
    double rawTotal = CpuUse.total(raw);
    md.append(String.format("| **all** | **%.1f** | **%.1f** |%n", weirTotal, rawTotal));
    md.append(
        String.format(
            "| cores × seconds available | %.1f | %.1f |%n",
            cores * r.weir().seconds(), cores * r.raw().seconds()));
    double elasticsearch = raw.getOrDefault(ELASTICSEARCH, 0.0);
    double weirOwn = weirTotal - weir.getOrDefault(ELASTICSEARCH, 0.0);
    md.append(
        String.format(
            "%n- Per 1,000 documents: Elasticsearch %.2f CPU s on the raw side, %.2f on weir's;"
                + " weir's own work (job, PostgreSQL, Kafka) %.2f. When the cores are all busy,"
                + " weir / raw can be at most about the raw side's CPU over weir's: %.2f here.%n",
            elasticsearch * 1000 / r.raw().documents(),
            weir.getOrDefault(ELASTICSEARCH, 0.0) * 1000 / r.weir().documents(),
            weirOwn * 1000 / r.weir().documents(),
            (rawTotal / r.raw().documents()) / (weirTotal / r.weir().documents())));
    double jit = weir.getOrDefault(CpuUse.JIT, 0.0);
    if (jit > 0) {
      md.append(
          String.format(
              "- Of weir's own work, the JIT compiler took %.2f per 1,000 documents (%.0f %% of"
                  + " the job JVM's CPU): the compiler is still at work in this pass, a cost a"
                  + " deployment pays in its first minutes, not per document. Without it,"
                  + " the bound above would be %.2f. Counted from the compiler threads alive at"
                  + " the end (a stopped one takes its time with it), so at least this much.%n",
              jit * 1000 / r.weir().documents(),
              100 * jit / weir.getOrDefault(CpuUse.THIS_JVM, jit),
              (rawTotal / r.raw().documents()) / ((weirTotal - jit) / r.weir().documents())));
    }
    return md.toString();
  }
}
