package dev.weir.backfill;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.ElasticsearchConnection;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole rebuild while the streaming indexer keeps running:
 *
 * <ol>
 *   <li><b>copy pass</b>: {@link BackfillJob} sends the target every document of the copy (the
 *       document's copy table: {@link CopySource}) it does not hold with the same content hash,
 *       with the document's stored version;
 *   <li>with {@code swap}: the alias moves to the target in one alias update; from then on the
 *       streaming job writes there;
 *   <li>after {@link BackfillOptions#SETTLE} (the streaming job's writes in flight land in the
 *       copy), a <b>catch-up pass</b>: the same job again, over only the documents written to the
 *       copy since the copy pass began (the rows a transaction from then on wrote; none: no pass).
 *       It sends those the target does not hold with the same hash; versions keep it from
 *       regressing anything the streaming job wrote to the target meanwhile;
 *   <li>documents in the target that the copy no longer has (deleted during the rebuild, when the
 *       streaming delete went to the old index) are deleted, with a version above the one held: a
 *       scan of the target (a point in time, any number of documents, ids of any kind) checked
 *       against the copy a page at a time.
 * </ol>
 *
 * A killed run started again with the same target resumes: every document already sent is skipped
 * by its hash.
 */
public final class Backfill {

  /** Progress of the running pass. */
  public interface Progress {
    void update(String pass, long done, long total, double docsPerSecond);

    /** The pass ended (after its last update). */
    default void ended(String pass) {}
  }

  /**
   * What a rebuild did; {@code steps} is how long each step took, in order (the {@code STEP_}
   * names), the steps a run skipped left out.
   */
  public record Summary(
      String target,
      long documents,
      long sent,
      long skippedUnchanged,
      long deleted,
      long bytesSent,
      boolean swapped,
      Duration elapsed,
      Map<String, Duration> steps) {

    /** The steps as "copy pass 73.0 s, refresh 0.4 s, …". */
    public String stepsLine() {
      return steps.entrySet().stream()
          .map(e -> String.format("%s %.1f s", e.getKey(), e.getValue().toMillis() / 1e3))
          .collect(Collectors.joining(", "));
    }
  }

  public static final String STEP_START = "start";
  public static final String STEP_COPY = "copy pass";
  public static final String STEP_REFRESH = "refresh";
  public static final String STEP_SWAP = "alias swap";
  public static final String STEP_SETTLE = "settle";
  public static final String STEP_CATCH_UP = "catch-up pass";
  public static final String STEP_DELETES = "deletes check";

  private static final Logger LOG = LoggerFactory.getLogger(Backfill.class);

  private Backfill() {}

  /**
   * The entry class of a backfill deployed on its own (a bounded FlinkDeployment in application
   * mode): {@code --backfill.target products-v2 [--backfill.swap-alias true]} plus the job options.
   * Progress and the summary go to the log; a failure ends the application.
   */
  public static void main(String[] args) throws Exception {
    WeirConfig config = WeirConfig.fromArgs(args);
    long[] lastLogged = {0};
    Summary s =
        run(
            config,
            config.get(BackfillOptions.SWAP_ALIAS),
            StreamExecutionEnvironment::getExecutionEnvironment,
            (pass, done, total, rate) -> {
              if (System.nanoTime() - lastLogged[0] > 10_000_000_000L || done == total) {
                lastLogged[0] = System.nanoTime();
                LOG.info("{} pass: {} / {} documents, {} docs/s", pass, done, total, (long) rate);
              }
            });
    LOG.info("backfill done: {}", s);
  }

  public static Summary run(
      WeirConfig config, boolean swap, Supplier<StreamExecutionEnvironment> env, Progress progress)
      throws Exception {
    Steps steps = new Steps();
    String target = BackfillOptions.target(config);
    CopySource copy = CopySource.of(config);
    long total = BackfillJob.count(config, copy);
    long mark = BackfillJob.writeMark(config, copy);
    steps.done(STEP_START);
    Map<String, Long> copyPass =
        pass(config, new BackfillJob(copy), env.get(), "copy", total, progress);
    steps.done(STEP_COPY);
    boolean dryRun = config.get(BackfillOptions.DRY_RUN);
    long deleted = 0;
    Map<String, Long> catchUp = Map.of();
    if (!dryRun) {
      try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
        // Searchers must find the whole index the moment the alias moves, and the catch-up pass
        // compares with what a search finds: without a refresh it would send the last second's
        // documents again.
        es.refresh(target);
        steps.done(STEP_REFRESH);
        if (swap) {
          TargetIndex.swap(es, copy.alias(), target);
          steps.done(STEP_SWAP);
        }
        Duration settle = config.get(BackfillOptions.SETTLE);
        if (!settle.isZero()) {
          Thread.sleep(settle.toMillis());
          steps.done(STEP_SETTLE);
        }
        List<String> written = BackfillJob.writtenSince(config, copy, mark);
        if (!written.isEmpty()) {
          catchUp =
              pass(
                  config,
                  new BackfillJob(copy, written),
                  env.get(),
                  "catch-up",
                  written.size(),
                  progress);
        }
        LOG.info(
            "catch-up pass: {} documents written to the copy since the copy pass began",
            written.size());
        steps.done(STEP_CATCH_UP);
        deleted = deleteWhatTheCopyNoLongerHas(config, copy, es, target);
        steps.done(STEP_DELETES);
      }
    }
    return new Summary(
        target,
        total,
        sum(SplitComparer.SENT, copyPass, catchUp),
        copyPass.getOrDefault(SplitComparer.SKIPPED, 0L),
        deleted,
        sum(SplitComparer.BYTES, copyPass, catchUp),
        swap && !dryRun,
        steps.elapsed(),
        steps.durations);
  }

  /** How long each step of a run took: each ends where the one before it ended. */
  private static final class Steps {
    private final long start = System.nanoTime();
    private long last = start;
    private final Map<String, Duration> durations = new LinkedHashMap<>();

    void done(String step) {
      long now = System.nanoTime();
      durations.put(step, Duration.ofNanos(now - last));
      last = now;
    }

    Duration elapsed() {
      return Duration.ofNanos(System.nanoTime() - start);
    }
  }

  /** Runs one pass ({@code job}) to its end, reporting progress every second. */
  static Map<String, Long> pass(
      WeirConfig config,
      BackfillJob backfill,
      StreamExecutionEnvironment env,
      String name,
      long total,
      Progress progress)
      throws Exception {
    long start = System.nanoTime();
    JobClient job = JobRunner.start(backfill, env, config);
    var result = job.getJobExecutionResult();
    while (!result.isDone()) {
      try {
        Map<String, Long> now = counters(job.getAccumulators().get());
        long done = now.getOrDefault(SplitComparer.READ, 0L);
        progress.update(name, done, total, done / ((System.nanoTime() - start) / 1e9));
      } catch (Exception e) {
        // accumulators are unavailable while the job starts or ends: the next tick will do
      }
      Thread.sleep(1_000);
    }
    Map<String, Long> end;
    try {
      end = counters(result.get().getAllAccumulatorResults());
    } catch (ExecutionException e) {
      throw new BackfillException(
          "the "
              + name
              + " pass failed: "
              + reason(e)
              + ". What was sent stays in the target; run the backfill again once this is fixed"
              + " and it resumes, skipping those documents.",
          e);
    }
    long done = end.getOrDefault(SplitComparer.READ, 0L);
    progress.update(name, done, total, done / ((System.nanoTime() - start) / 1e9));
    progress.ended(name);
    return end;
  }

  /** The root cause's message: e.g. the document Elasticsearch refused, and why. */
  private static String reason(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getMessage() == null ? cause.toString() : cause.getMessage();
  }

  private static Map<String, Long> counters(Map<String, Object> accumulators) {
    Map<String, Long> counters = new HashMap<>();
    accumulators.forEach(
        (k, v) -> {
          if (v instanceof Number n) {
            counters.put(k, n.longValue());
          }
        });
    return counters;
  }

  private static long sum(String key, Map<String, Long> a, Map<String, Long> b) {
    return a.getOrDefault(key, 0L) + b.getOrDefault(key, 0L);
  }

  /**
   * Deletes the target's documents that the copy no longer has, with an external version one above
   * the one held (and at the routing they were written with): if the streaming job wrote a newer
   * version meanwhile, it stays.
   */
  private static long deleteWhatTheCopyNoLongerHas(
      WeirConfig config, CopySource copy, SearchCluster es, String target) throws Exception {
    long[] deleted = {0};
    try (Connection c = PostgresConnectionProvider.open(config)) {
      c.setReadOnly(true);
      es.scan(
          target,
          // Pages of ten splits: few round trips for a large index, several pages for a small one.
          Math.min(TargetIndex.MAX_PAGE, 10 * config.get(BackfillOptions.SPLIT_SIZE)),
          page -> {
            Map<String, SearchCluster.Hit> held = new LinkedHashMap<>();
            page.forEach(hit -> held.put(hit.id(), hit));
            for (String id : copy.missing(c, held.keySet())) {
              SearchCluster.Hit hit = held.get(id);
              if (es.deleteBelow(target, hit.id(), hit.routing(), hit.version() + 1)) {
                deleted[0]++;
              }
            }
          });
    }
    return deleted[0];
  }
}
