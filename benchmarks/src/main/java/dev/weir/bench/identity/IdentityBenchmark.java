package dev.weir.bench.identity;

import com.sun.management.OperatingSystemMXBean;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.identity.Enricher;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityStores;
import dev.weir.identity.ReadIdentityEvent;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.TrackingEvent;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * identity vs a naive enrichment (one lookup and one full-row upsert per event), on the same
 * generated input (a repeat ratio of distinct ids), on the same PostgreSQL, one after the other.
 * Measured: events/s, events per second of process CPU time (per core), and database work per event
 * (queries, rows written, transactions, from pg_stat).
 */
public final class IdentityBenchmark {

  /** What one side did. */
  public record Measurement(
      String name,
      long events,
      double seconds,
      double cpuSeconds,
      long queries,
      long rowsWritten,
      long transactions,
      long steadyEvents,
      double steadySeconds,
      double steadyCpuSeconds) {
    public double eventsPerSecond() {
      return events / seconds;
    }

    double eventsPerCpuSecond() {
      return events / cpuSeconds;
    }

    /** After the warm-up (the first fifth of the input): no start-up, JIT mostly done. */
    public double steadyEventsPerSecond() {
      return steadyEvents / steadySeconds;
    }

    double steadyEventsPerCpuSecond() {
      return steadyEvents / steadyCpuSeconds;
    }

    public double statementsPerEvent() {
      return (double) (queries + rowsWritten) / events;
    }
  }

  public record Result(long events, int distinctIds, Measurement weir, Measurement naive) {}

  private IdentityBenchmark() {}

  /**
   * Event i: distinct id i mod {@code distinctIds}, times increasing (so repeats write nothing).
   */
  static TrackingEvent event(long i, int distinctIds) {
    return new TrackingEvent(
        "e" + i,
        "bench",
        "user-" + (i % distinctIds),
        "page_view",
        START.plusMillis(i),
        new HashMap<>(Map.of("i", i)));
  }

  private static final Instant START = Instant.parse("2026-01-05T09:00:00Z");

  /**
   * Process CPU time and wall time when the generator passed the end of the warm-up. The local
   * MiniCluster runs the job in this JVM with this class loader, so the source can set it.
   */
  private static final AtomicReference<long[]> WARM = new AtomicReference<>();

  static void markWarm() {
    WARM.set(new long[] {cpuNanos(), System.nanoTime()});
  }

  private static long cpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  public static Result run(LocalStack stack, long events, double repeatRatio) throws Exception {
    return run(stack, events, repeatRatio, 1);
  }

  /** The same, weir's job at {@code parallelism}. */
  public static Result run(LocalStack stack, long events, double repeatRatio, int parallelism)
      throws Exception {
    Connections connections = stack.up();
    int distinctIds = (int) Math.max(1, Math.round(events * (1 - repeatRatio)));

    WeirConfig weirDb = BenchEnvironment.freshDatabase(stack, connections, "bench_identity_weir");
    Measurement weir =
        measure(
            "weir (keyed-state cache, batched lookups, writes only changed columns)",
            weirDb,
            events,
            () -> weirJob(weirDb, events, distinctIds, parallelism));

    WeirConfig naiveDb = BenchEnvironment.freshDatabase(stack, connections, "bench_identity_naive");
    Measurement naive =
        measure(
            "naive (one lookup and one full-row upsert per event)",
            naiveDb,
            events,
            () -> naive(naiveDb, events, distinctIds));
    return new Result(events, distinctIds, weir, naive);
  }

  /**
   * weir's identity job on {@code events} generated tracking events over {@code distinctIds} ids,
   * in a MiniCluster, against the identity store {@code config} names; returns when all are
   * processed.
   */
  static void weirJob(WeirConfig config, long events, int distinctIds, int parallelism)
      throws Exception {
    StreamExecutionEnvironment env = BenchEnvironment.miniCluster();
    JobRunner.configure(env, config); // as deployed: checkpoints, serialization
    env.setParallelism(parallelism);
    long warmUp = warmUpEvents(events);
    DataStream<TrackingEvent> tracking =
        env.fromSource(
                new DataGeneratorSource<>(
                    (GeneratorFunction<Long, TrackingEvent>)
                        i -> {
                          if (i == warmUp) {
                            markWarm();
                          }
                          return event(i, distinctIds);
                        },
                    events,
                    RateLimiterStrategy.noOp(),
                    Enricher.EVENT),
                WatermarkStrategy.noWatermarks(),
                "tracking")
            .uid("bench-tracking"); // as deployed, every operator needs a uid
    // The job's own wiring, with no identity events and the output discarded.
    DataStream<ReadIdentityEvent> noIdentityEvents =
        env.fromData(
                new ReadIdentityEvent(
                    new IdentityEvent("", IdentityEvent.Type.IDENTIFY, "", "", "", Instant.EPOCH),
                    new SourcePosition("", 0, 0, null)))
            .uid("bench-identity-events")
            .filter(e -> false)
            .uid("bench-no-identity-events");
    IdentityStores.Opener store = IdentityStores.of(config);
    IdentityJob.resolve(
        tracking,
        noIdentityEvents,
        store,
        config,
        new DiscardingSink<>(),
        IdentityJob.writeSink(store, config),
        new DeadLetters(IdentityJob.NAME));
    env.execute("bench identity");
  }

  private static void naive(WeirConfig config, long events, int distinctIds) throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config);
        PreparedStatement lookup =
            c.prepareStatement(
                "SELECT canonical_id, earliest_seen FROM identity_mapping WHERE project_id = ? AND distinct_id = ?");
        PreparedStatement upsert =
            c.prepareStatement(
                "INSERT INTO identity_mapping (project_id, distinct_id, canonical_id, earliest_seen,"
                    + " identify_seen, alias_seen, people_update_seen, updated_at)"
                    + " VALUES (?, ?, ?, ?, false, false, false, now())"
                    + " ON CONFLICT (project_id, distinct_id) DO UPDATE SET canonical_id = excluded.canonical_id,"
                    + " earliest_seen = excluded.earliest_seen, identify_seen = excluded.identify_seen,"
                    + " alias_seen = excluded.alias_seen, people_update_seen = excluded.people_update_seen,"
                    + " updated_at = excluded.updated_at")) {
      for (long i = 0; i < events; i++) {
        if (i == warmUpEvents(events)) {
          markWarm();
        }
        TrackingEvent e = event(i, distinctIds);
        String canonical = e.distinctId();
        Timestamp earliest = Timestamp.from(e.time());
        lookup.setString(1, e.projectId());
        lookup.setString(2, e.distinctId());
        try (ResultSet rs = lookup.executeQuery()) {
          if (rs.next()) {
            canonical = rs.getString(1);
            Timestamp stored = rs.getTimestamp(2);
            if (stored != null && stored.before(earliest)) {
              earliest = stored;
            }
          }
        }
        upsert.setString(1, e.projectId());
        upsert.setString(2, e.distinctId());
        upsert.setString(3, canonical);
        upsert.setTimestamp(4, earliest);
        upsert.executeUpdate();
      }
    }
  }

  private static Measurement measure(
      String name, WeirConfig config, long events, ThrowingRunnable<Exception> work)
      throws Exception {
    long[] before = dbCounters(config);
    long cpuBefore = cpuNanos();
    long start = System.nanoTime();
    WARM.set(null);
    work.run();
    long end = System.nanoTime();
    long cpuEnd = cpuNanos();
    double seconds = (end - start) / 1e9;
    double cpuSeconds = (cpuEnd - cpuBefore) / 1e9;
    long[] warm = WARM.get();
    if (warm == null) {
      throw new IllegalStateException(name + ": the warm-up mark was never reached");
    }
    Thread.sleep(1_000); // pg_stat is flushed by each backend about once a second
    long[] after = dbCounters(config);
    return new Measurement(
        name,
        events,
        seconds,
        cpuSeconds,
        after[0] - before[0],
        after[1] - before[1],
        after[2] - before[2],
        events - warmUpEvents(events),
        (end - warm[1]) / 1e9,
        (cpuEnd - warm[0]) / 1e9);
  }

  static long warmUpEvents(long events) {
    return events / 5;
  }

  /** Index scans on identity_mapping (lookups), rows inserted + updated, commits. */
  private static long[] dbCounters(WeirConfig config) throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT coalesce(t.idx_scan, 0), t.n_tup_ins + t.n_tup_upd, d.xact_commit"
                        + " FROM pg_stat_user_tables t, pg_stat_database d"
                        + " WHERE t.relname = 'identity_mapping' AND d.datname = current_database()")) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
    }
  }
}
