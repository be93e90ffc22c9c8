package dev.weir.bench.scale;

import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CountTimeline;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.MachineLoad;
import dev.weir.bench.support.RawBulk;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.BundledDocuments;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * Declared documents at scale (orders.json over a generated store, ScaleStore): on the real
 * multi-process cluster (ScaleCluster), from an empty start,
 *
 * <ol>
 *   <li><b>the initial sync</b>: cdc-catalog and search-index until every order is searchable,
 *       against a raw bulk of the same documents into the same engine; the jobs' heap, checkpoints
 *       and state ({@link ScaleSync}); every document checked against the one SQL builds;
 *   <li><b>a fan-out</b>: the hot brand, held by a tenth of the documents, renamed while orders
 *       change at a steady rate ({@link ScaleFanOut});
 *   <li><b>backfill</b> of every document from the copy: whole, killed halfway and resumed, again
 *       over the unchanged index ({@link ScaleBackfill});
 *   <li><b>a fault</b>: the sync again from an empty start, the TaskManager running search-index
 *       killed halfway through it (by the first sync's time); every document checked against SQL.
 * </ol>
 */
public final class DocumentsScaleBenchmark {

  /** The steps, in the order they run; the sync runs whenever any of the others does. */
  public static final List<String> STEPS = List.of("sync", "fanout", "backfill", "fault");

  /** The size {@code bench all} runs and {@code --quick} means: a few minutes on 2 cores. */
  public static final long QUICK_ROOTS = 10_000;

  public static final long FULL_ROOTS = 1_000_000;

  /** Order changes a second while the hot brand is renamed. */
  public static final int DEFAULT_CHANGE_RATE = 1000;

  /** The REST port of the benchmark's own Flink cluster (the next one is its RPC port). */
  public static final int DEFAULT_CLUSTER_PORT = 18381;

  private static final String STORE = "bench_scale_store";
  private static final String ALIAS_PREFIX = "bench-scale-";

  /**
   * @param clusterPort the REST port of the benchmark's own Flink cluster (the next one is its RPC
   *     port)
   */
  public record Options(
      long roots, int parallelism, int changeRate, int clusterPort, Set<String> steps) {

    /** The size and settings {@code bench all} runs: every step, the defaults. */
    public static Options quick() {
      return new Options(
          QUICK_ROOTS, 1, DEFAULT_CHANGE_RATE, DEFAULT_CLUSTER_PORT, Set.copyOf(STEPS));
    }
  }

  /** A raw bulk of the documents: until the last request was answered, and until searchable. */
  public record RawLoad(
      long documents, long bytes, double sendSeconds, double seconds, Map<String, Double> cpu) {
    public double documentsPerSecond() {
      return documents / seconds;
    }
  }

  /**
   * @param load how busy the whole machine was from the cluster's start until the end: how
   *     disturbed the figures are
   * @param measuredCpu the CPU seconds of the processes the benchmark measured over the same window
   *     (the stack's services, the cluster's JVMs, this JVM): what the machine's other work took is
   *     the rest of {@code load}'s
   */
  public record Result(
      Instant measured,
      Options options,
      ScaleStore.Size size,
      ScaleStore.Source source,
      ScaleSync.Result sync,
      RawLoad raw,
      ScaleFanOut.Result fanOut,
      ScaleBackfill.Result backfill,
      ScaleSync.Result fault,
      MachineLoad.Summary load,
      Map<String, Double> measuredCpu,
      Map<String, Double> stepSeconds) {

    /**
     * weir's initial sync, from the moment both jobs ran, over the raw bulk of the same documents
     * (target at least 0.9).
     */
    public double syncOverRaw() {
      return sync.documentsPerSecondRunning() / raw.documentsPerSecond();
    }

    /** The same, weir's side timed from the first submission (the jobs' start-up included). */
    public double syncFromSubmissionOverRaw() {
      return sync.documentsPerSecond() / raw.documentsPerSecond();
    }
  }

  private DocumentsScaleBenchmark() {}

  public static Result run(LocalStack stack, Options options, Path workDir, Consumer<String> log)
      throws Exception {
    Instant measured = Instant.now();
    Map<String, Double> stepSeconds = new LinkedHashMap<>();
    Connections connections = stack.up();
    ScaleStore.Size size = new ScaleStore.Size(options.roots());
    String storeUrl = connections.postgresJdbcUrl(STORE);
    stack.ensurePostgresDatabase(STORE);
    WeirConfig sync = config(stack, connections, storeUrl, "sync", workDir);
    WeirConfig fault = config(stack, connections, storeUrl, "fault", workDir);
    CatalogCaptureJob.dropSlot(sync);
    CatalogCaptureJob.dropSlot(fault);
    stack.recreatePostgresDatabase(STORE);
    long start = System.nanoTime();
    ScaleStore.Source source = ScaleStore.generate(sync, storeUrl, size);
    log.accept(
        String.format(
            "store: %,d rows in %.1f s %s", source.totalRows(), source.seconds(), source.rows()));
    stepSeconds.put("generate the store", seconds(start));
    long hot;
    try (Connection c = PostgresConnectionProvider.open(sync, storeUrl)) {
      hot = ScaleStore.hotDocuments(c);
    }

    try (ScaleCluster cluster = ScaleCluster.up(stack, connections, options.clusterPort());
        MachineLoad load = MachineLoad.start()) {
      // The processes measured: the stack's, the cluster's and this JVM.
      CpuUse measuredCpu = CpuUse.start(cluster.processes(stack));
      start = System.nanoTime();
      prepare(sync);
      ScaleSync.Result first =
          ScaleSync.run(
              cluster,
              stack,
              sync,
              storeUrl,
              "sync",
              options.roots(),
              options.parallelism(),
              Double.NaN,
              log);
      stepSeconds.put("initial sync (and its check against SQL)", seconds(start));

      start = System.nanoTime();
      RawLoad raw = rawBulk(stack, cluster, sync, workDir, log);
      stepSeconds.put("raw bulk of the same documents", seconds(start));

      ScaleFanOut.Result fanOut = null;
      if (options.steps().contains("fanout")) {
        start = System.nanoTime();
        // A change rate the job can follow at all on this machine: above the rate it indexed at
        // during the sync, the changes' latency measures their backlog, not the rename.
        int changeRate =
            (int)
                Math.max(10, Math.min(options.changeRate(), first.documentsPerSecondRunning() / 2));
        fanOut =
            ScaleFanOut.run(
                sync, storeUrl, options.roots(), hot, changeRate, cluster.processes(stack), log);
        stepSeconds.put("fan-out", seconds(start));
      }
      cluster.cancel(first.indexJob());
      cluster.cancel(first.captureJob());

      ScaleBackfill.Result backfill = null;
      if (options.steps().contains("backfill")) {
        start = System.nanoTime();
        // After the fan-out, the copy holds the renamed documents: the backfill sends those.
        backfill =
            ScaleBackfill.run(
                sync, first.documents(), 2, () -> cluster.processes(stack), workDir, log);
        stepSeconds.put("backfill", seconds(start));
      }

      ScaleSync.Result killed = null;
      if (options.steps().contains("fault")) {
        start = System.nanoTime();
        CatalogCaptureJob.dropSlot(sync);
        prepare(fault);
        killed =
            ScaleSync.run(
                cluster,
                stack,
                fault,
                storeUrl,
                "fault",
                options.roots(),
                options.parallelism(),
                (first.seconds() - first.indexRunningSeconds()) / 2,
                log);
        cluster.cancel(killed.indexJob());
        cluster.cancel(killed.captureJob());
        stepSeconds.put("initial sync with a TaskManager killed (and its check)", seconds(start));
      }
      CatalogCaptureJob.dropSlot(sync);
      CatalogCaptureJob.dropSlot(fault);
      return new Result(
          measured,
          options,
          size,
          source,
          first,
          raw,
          fanOut,
          backfill,
          killed,
          load.summary(),
          measuredCpu.seconds(),
          stepSeconds);
    }
  }

  /** A sync's settings: its own copy database, slot, topics, deployment id and alias. */
  private static WeirConfig config(
      LocalStack stack, Connections connections, String storeUrl, String name, Path workDir)
      throws IOException {
    String alias = ALIAS_PREFIX + name;
    WeirConfig base =
        CaptureOptions.ownCatalog(
                BenchEnvironment.freshDatabase(stack, connections, "bench_scale_" + name),
                storeUrl,
                "bench_scale_" + name,
                "bench.scale." + name,
                alias)
            // Consumer group and transactional ids of their own, whatever ran before.
            .with(
                WeirOptions.DEPLOYMENT_ID, "scale-" + name + "-" + Instant.now().getEpochSecond());
    Path file =
        BundledDocuments.write(workDir.resolve(alias + ".json"), "orders.json", STORE, alias, null);
    return base.with(DocumentOptions.DOCUMENTS, file.toString());
  }

  /** An empty start: no topics of an earlier run, no index. */
  private static void prepare(WeirConfig config) throws Exception {
    KafkaTopics.deleteTopics(config, Definitions.topics(config, Definitions.plans(config)));
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      BenchEnvironment.deleteIndices(es, config.get(DocumentOptions.ALIAS) + "*");
      BenchEnvironment.awaitMergesDone(es);
    }
  }

  /**
   * The documents of the sync's copy (those it indexed, with their versions) written to a file of
   * bulk bodies, then loaded into a fresh index with the job's mapping, one loader per core.
   */
  private static RawLoad rawBulk(
      LocalStack stack, ScaleCluster cluster, WeirConfig config, Path workDir, Consumer<String> log)
      throws Exception {
    DocumentPlan plan = Definitions.plans(config).get(0);
    String index = config.get(DocumentOptions.ALIAS) + "-raw";
    Path bodies = workDir.resolve("raw-bulk.ndjson");
    RawBulkFile file;
    try (Connection c = PostgresConnectionProvider.open(config)) {
      file = RawBulkFile.write(c, new DocumentCopy(plan), index, bodies);
    }
    int loaders = Runtime.getRuntime().availableProcessors();
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      RawBulk.createIndex(es, index, new DocumentIndex(plan).mapping());
      BenchEnvironment.awaitMergesDone(es);
      CpuUse cpu = CpuUse.start(cluster.processes(stack));
      long start = System.nanoTime();
      long[] sent = {0};
      CompletableFuture<Void> sending =
          CompletableFuture.runAsync(
              () -> {
                try {
                  file.send(es, loaders);
                  sent[0] = System.nanoTime();
                } catch (Exception e) {
                  throw new CompletionException(e);
                }
              });
      try (CountTimeline searchable = new CountTimeline(() -> es.count(index))) {
        while (searchable.latest() < file.documents()) {
          if (sending.isCompletedExceptionally()) {
            sending.join();
          }
          Thread.sleep(100);
        }
        double seconds =
            (searchable.firstReaching(file.documents()).orElseThrow().nanoTime() - start) / 1e9;
        sending.join();
        RawLoad raw =
            new RawLoad(
                file.documents(), file.bytes(), (sent[0] - start) / 1e9, seconds, cpu.seconds());
        log.accept(
            String.format(
                Locale.ROOT,
                "raw bulk: %,d documents searchable in %.1f s (%,.0f/s)",
                raw.documents(),
                raw.seconds(),
                raw.documentsPerSecond()));
        es.deleteIndex(index);
        return raw;
      }
    } finally {
      Files.deleteIfExists(bodies);
    }
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
