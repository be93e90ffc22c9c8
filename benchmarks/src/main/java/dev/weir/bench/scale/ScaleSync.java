package dev.weir.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.bench.support.CountTimeline;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.IndexWork;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One initial sync on the cluster from an empty start: cdc-catalog snapshots the store into fresh
 * topics while search-index, started right after it without state, joins, copies and indexes every
 * order; timed from the first submission until a search counts every document. Meanwhile the jobs'
 * checkpoints, the TaskManagers' heap after each collection and the CPU of every process are
 * recorded; with a kill time, the TaskManager running search-index is killed then and replaced.
 * Once done, every document is checked against the one SQL builds ({@link ScaleVerification}).
 */
final class ScaleSync {

  /**
   * One job's checkpoints over the sync: counts, the longest and the largest, the last's full size
   * (for RocksDB incremental checkpoints: every file of the state) and the timeout. Failures count
   * from the moment the job ran every task (before, Flink aborts each trigger: not all tasks run).
   *
   * @param history each completed checkpoint: seconds since the sync began when it was triggered,
   *     its duration (ms), its full state size and the bytes it uploaded
   */
  record Checkpoints(
      long completed,
      long failed,
      long maxDurationMs,
      long maxStateBytes,
      long lastStateBytes,
      long maxUploadedBytes,
      long timeoutMs,
      List<double[]> history) {}

  /** What a kill of the TaskManager running search-index cost, and where the job restarted. */
  record Restart(
      int taskManager,
      double killedAtSeconds,
      long searchableAtKill,
      long checkpointId,
      double checkpointTriggeredAtSeconds,
      double runningAgainSeconds) {}

  /**
   * @param seconds from the first submission until the last index operation of the sync was applied
   *     (every document complete; searchable within the index's refresh interval)
   * @param searchableSeconds from the first submission until a search counted every document (some
   *     of them not complete yet)
   * @param indexOperations the index operations the sync applied (a document written before the
   *     rows of its children reached the job is written again as they do)
   * @param indexRunningSeconds from the first submission until both jobs ran every task
   * @param timeline seconds since the first submission when a search counted each tenth of the
   *     documents
   * @param heapAfterGc per TaskManager, the most heap (MB) held right after a collection and the
   *     heap's size then
   * @param liveHeap per TaskManager, the heap (MB) after a full collection halfway and at the end
   * @param heapTop what the heap of the TaskManager running search-index held most of at the end:
   *     the largest classes of its histogram
   * @param cpu the CPU seconds of each process from the first submission
   * @param cpuRunning the same from the moment both jobs ran every task
   * @param taskManagers per TaskManager, the jobs it ran
   */
  record Result(
      String name,
      long documents,
      double seconds,
      double searchableSeconds,
      long indexOperations,
      double indexRunningSeconds,
      double firstSearchableSeconds,
      List<double[]> timeline,
      Map<String, Double> cpu,
      Map<String, Double> cpuRunning,
      Map<String, List<String>> taskManagers,
      Map<String, long[]> heapAfterGc,
      Map<String, long[]> liveHeap,
      List<String> heapTop,
      Checkpoints capture,
      Checkpoints index,
      long rocksDbLocalBytes,
      long copyBytes,
      long indexBytes,
      Restart restart,
      ScaleVerification.Result verification,
      String captureJob,
      String indexJob) {
    double documentsPerSecond() {
      return documents / seconds;
    }

    /** From the moment both jobs ran every task: the sync without the jobs' submission. */
    double documentsPerSecondRunning() {
      return documents / (seconds - indexRunningSeconds);
    }
  }

  /** How long no index operation must come for the sync to be done. */
  private static final Duration QUIET = Duration.ofSeconds(20);

  private static final Duration PATIENCE_PER_DOCUMENT = Duration.ofMillis(20);

  private ScaleSync() {}

  /**
   * The sync of {@code documents} orders of the store at {@code storeUrl} with {@code config} (its
   * own topics, slot, copy database and alias, all fresh); {@code killAfterSeconds} after both jobs
   * ran every task (NaN: never) the TaskManager running search-index is killed and replaced. The
   * jobs are left running.
   */
  static Result run(
      ScaleCluster cluster,
      LocalStack stack,
      WeirConfig config,
      String storeUrl,
      String name,
      long documents,
      int parallelism,
      double killAfterSeconds,
      Consumer<String> log)
      throws Exception {
    String alias = config.get(DocumentOptions.ALIAS);
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      Map<String, Long> gcFrom = cluster.gcLogPositions();
      CpuUse cpu = CpuUse.start(cluster.processes(stack));
      long start = System.nanoTime();
      String capture = cluster.submit(CatalogCaptureJob.NAME, config, 1);
      String index = cluster.submit(SearchIndexJob.NAME, config, parallelism);
      cluster.awaitRunning(capture);
      cluster.awaitRunning(index);
      double indexRunning = secondsSince(start);
      CpuUse cpuRunning = cpu.restart();
      Map<String, List<String>> taskManagers = new TreeMap<>();
      taskManagers
          .computeIfAbsent(
              "taskmanager-" + cluster.taskManagerRunning(capture), k -> new ArrayList<>())
          .add(CatalogCaptureJob.NAME);
      taskManagers
          .computeIfAbsent(
              "taskmanager-" + cluster.taskManagerRunning(index), k -> new ArrayList<>())
          .add(SearchIndexJob.NAME);
      log.accept(name + ": jobs running after " + seconds(indexRunning) + " on " + taskManagers);
      CheckpointWatch captureCheckpoints = new CheckpointWatch(cluster, capture, start);
      CheckpointWatch indexCheckpoints = new CheckpointWatch(cluster, index, start);
      Map<String, Long> liveHalfway = Map.of();
      Restart restart = null;
      long deadline =
          start
              + Duration.ofMinutes(10).toNanos()
              + PATIENCE_PER_DOCUMENT.multipliedBy(documents).toNanos();
      try (CountTimeline searchable = new CountTimeline(() -> es.count(alias));
          CountTimeline operations = new CountTimeline(() -> IndexWork.read(es, alias).indexed())) {
        long lastLog = System.nanoTime();
        // Done once every document is searchable and no index operation came for a while: a
        // document is counted from its first version, and one written before the rows of its
        // children reached the job is written again as they do.
        while (searchable.latest() < documents || !quiet(operations)) {
          Thread.sleep(1000);
          captureCheckpoints.poll();
          indexCheckpoints.poll();
          failIfFailed(cluster, capture, index);
          if (liveHalfway.isEmpty() && searchable.latest() >= documents / 2 && restart == null) {
            liveHalfway = cluster.liveHeap();
          }
          if (restart == null && secondsSince(start) >= indexRunning + killAfterSeconds) {
            restart = killAndRecover(cluster, index, start, searchable.latest(), log);
          }
          if (System.nanoTime() - lastLog > Duration.ofSeconds(30).toNanos()) {
            lastLog = System.nanoTime();
            log.accept(
                String.format(
                    "%s: %,d of %,d documents searchable after %s",
                    name, searchable.latest(), documents, seconds(secondsSince(start))));
          }
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                name
                    + ": "
                    + searchable.latest()
                    + " of "
                    + documents
                    + " searchable at the deadline");
          }
        }
        // Read at the end: the quiet wait's few idle seconds in it, not a read every second (each
        // reads every thread's times of this JVM, a cost of its own on shared cores).
        Map<String, Double> cpuSeconds = cpu.seconds();
        Map<String, Double> cpuSecondsRunning = cpuRunning.seconds();
        double searchableSeconds =
            (searchable.firstReaching(documents).orElseThrow().nanoTime() - start) / 1e9;
        long indexOperations = operations.latest();
        double seconds =
            Math.max(
                searchableSeconds,
                (operations.firstReaching(indexOperations).orElseThrow().nanoTime() - start) / 1e9);
        List<double[]> timeline = new ArrayList<>();
        for (int tenth = 0; tenth <= 10; tenth++) {
          long count = Math.max(1, documents * tenth / 10);
          searchable
              .firstReaching(count)
              .ifPresent(s -> timeline.add(new double[] {(s.nanoTime() - start) / 1e9, count}));
        }
        double first = timeline.get(0)[0];
        log.accept(
            name
                + ": every document searchable after "
                + seconds(searchableSeconds)
                + ", the last of "
                + indexOperations
                + " index operations after "
                + seconds(seconds));
        // The state with every row in it: the first checkpoint of search-index triggered now.
        long finished = System.currentTimeMillis();
        indexCheckpoints.awaitTriggeredAfter(finished, Duration.ofMinutes(3));
        captureCheckpoints.poll();
        Map<String, long[]> heap = cluster.heapAfterGc(gcFrom);
        Map<String, Long> liveEnd = cluster.liveHeap();
        List<String> heapTop =
            cluster.heapHistogram("taskmanager-" + cluster.taskManagerRunning(index), 8);
        Map<String, Long> halfway = liveHalfway;
        Map<String, long[]> live = new LinkedHashMap<>();
        liveEnd.forEach((tm, mb) -> live.put(tm, new long[] {halfway.getOrDefault(tm, -1L), mb}));
        long copyBytes;
        DocumentPlan plan = Definitions.plans(config).get(0);
        try (Connection c = PostgresConnectionProvider.open(config)) {
          copyBytes = ScaleStore.tableBytes(c, List.of(plan.copyTable()));
        }
        es.refresh(alias);
        long indexBytes = storeBytes(es, alias);
        ScaleVerification.Result verification = ScaleVerification.verify(config, storeUrl, log);
        return new Result(
            name,
            documents,
            seconds,
            searchableSeconds,
            indexOperations,
            indexRunning,
            first,
            timeline,
            cpuSeconds,
            cpuSecondsRunning,
            taskManagers,
            heap,
            live,
            heapTop,
            captureCheckpoints.result(),
            indexCheckpoints.result(),
            cluster.rocksDbBytes(),
            copyBytes,
            indexBytes,
            restart,
            verification,
            capture,
            index);
      }
    }
  }

  private static void failIfFailed(ScaleCluster cluster, String... jobs) throws Exception {
    for (String job : jobs) {
      String state = cluster.job(job).state();
      if (state.equals("FAILED") || state.equals("CANCELED")) {
        throw new IllegalStateException("job " + job + " is " + state);
      }
    }
  }

  /**
   * Kills the TaskManager running search-index and starts a replacement; returns once the job runs
   * again, with the checkpoint it restarted from.
   */
  private static Restart killAndRecover(
      ScaleCluster cluster, String index, long start, long searchable, Consumer<String> log)
      throws Exception {
    int victim = cluster.taskManagerRunning(index);
    long killedAt = System.currentTimeMillis();
    double killed = secondsSince(start);
    log.accept("killing taskmanager-" + victim + " (search-index) after " + seconds(killed));
    cluster.killAndReplace(victim);
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (true) {
      var state = cluster.job(index);
      if (state.lastRestart() >= killedAt
          && state.state().equals("RUNNING")
          && state.allTasksRunning()) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "search-index did not run again within 5 minutes: " + state);
      }
      Thread.sleep(200);
    }
    double running = secondsSince(start);
    JsonNode restored = cluster.checkpoints(index).path("latest").path("restored");
    long startEpochMs = killedAt - (long) (killed * 1000);
    long checkpointId = restored.path("id").asLong(-1);
    double triggered = Double.NaN;
    for (JsonNode c : cluster.checkpoints(index).path("history")) {
      if (c.path("id").asLong() == checkpointId) {
        triggered = (c.path("trigger_timestamp").asLong() - startEpochMs) / 1e3;
      }
    }
    log.accept(
        "search-index running again after "
            + seconds(running)
            + ", from checkpoint "
            + checkpointId);
    return new Restart(victim, killed, searchable, checkpointId, triggered, running);
  }

  /**
   * A job's checkpoints, polled from the REST API (which keeps only the last few in its history).
   */
  private static final class CheckpointWatch {
    private final ScaleCluster cluster;
    private final String job;
    private final long startNanos;
    private final long startEpochMs;
    private final Map<Long, JsonNode> completed = new TreeMap<>();
    private final long failedBefore;
    private long failed;
    private long timeoutMs = -1;

    /** Watches from now, the job running every task. */
    CheckpointWatch(ScaleCluster cluster, String job, long startNanos) throws IOException {
      this.cluster = cluster;
      this.job = job;
      this.startNanos = startNanos;
      this.startEpochMs = System.currentTimeMillis() - (System.nanoTime() - startNanos) / 1_000_000;
      this.failedBefore = cluster.checkpoints(job).path("counts").path("failed").asLong();
    }

    void poll() throws Exception {
      JsonNode stats = cluster.checkpoints(job);
      failed = Math.max(failed, stats.path("counts").path("failed").asLong() - failedBefore);
      for (JsonNode c : stats.path("history")) {
        if (c.path("status").asText().equals("COMPLETED") && !c.path("is_savepoint").asBoolean()) {
          completed.putIfAbsent(c.path("id").asLong(), c);
        }
      }
      if (timeoutMs < 0) {
        timeoutMs = cluster.checkpointTimeoutMs(job);
      }
    }

    /** Until a checkpoint triggered after {@code epochMs} completed (or the timeout). */
    void awaitTriggeredAfter(long epochMs, Duration timeout) throws Exception {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        poll();
        if (completed.values().stream()
            .anyMatch(c -> c.path("trigger_timestamp").asLong() > epochMs)) {
          return;
        }
        Thread.sleep(1000);
      }
    }

    Checkpoints result() {
      List<double[]> history = new ArrayList<>();
      long maxDuration = 0;
      long maxState = 0;
      long maxUploaded = 0;
      long last = 0;
      for (JsonNode c : completed.values()) {
        long duration = c.path("end_to_end_duration").asLong();
        long state = c.path("state_size").asLong();
        long uploaded = c.path("checkpointed_size").asLong();
        history.add(
            new double[] {
              (c.path("trigger_timestamp").asLong() - startEpochMs) / 1e3, duration, state, uploaded
            });
        maxDuration = Math.max(maxDuration, duration);
        maxState = Math.max(maxState, state);
        maxUploaded = Math.max(maxUploaded, uploaded);
        last = state;
      }
      return new Checkpoints(
          completed.size(), failed, maxDuration, maxState, last, maxUploaded, timeoutMs, history);
    }
  }

  /** No index operation came for {@link #QUIET}. */
  private static boolean quiet(CountTimeline operations) {
    return operations
        .firstReaching(operations.latest())
        .map(last -> System.nanoTime() - last.nanoTime() > QUIET.toNanos())
        .orElse(false);
  }

  /** The bytes the primaries of {@code index} take on disk. */
  private static long storeBytes(SearchCluster es, String index) throws IOException {
    return es.get("/" + index + "/_stats/store")
        .path("_all")
        .path("primaries")
        .path("store")
        .path("size_in_bytes")
        .asLong();
  }

  static double secondsSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.1f s", s);
  }
}
