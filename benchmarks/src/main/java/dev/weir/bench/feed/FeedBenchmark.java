package dev.weir.bench.feed;

import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.WalRecords;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.CollationKey;
import dev.weir.feed.FeedEntry;
import dev.weir.feed.FeedSettings;
import dev.weir.schema.ActivityEvent;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * activity-feed vs the naive collation (Postman's original: every collated event inserts a new row
 * and deletes the old one), on the same generated input, on the same PostgreSQL, one after the
 * other. Measured: WAL bytes of each side's database ({@link WalRecords#ofTable}), row writes and
 * dead tuples (pg_stat_user_tables), events/s.
 */
public final class FeedBenchmark {

  /** What one side did. */
  public record Measurement(
      String name,
      long events,
      long walBytes,
      long inserts,
      long updates,
      long deletes,
      long deadTuples,
      double seconds,
      List<WalRecords> walByPart) {
    long rowWrites() {
      return inserts + updates + deletes;
    }

    public double walPerEvent() {
      return (double) walBytes / events;
    }

    public double rowWritesPerEvent() {
      return (double) rowWrites() / events;
    }

    public double eventsPerSecond() {
      return events / seconds;
    }
  }

  /**
   * One input, both ways, and the floor: weir's final entry rows written once each by a plain
   * batched INSERT into a fresh table, the least WAL any design that writes each entry can cost.
   */
  public record Result(
      String scenario,
      int events,
      int burst,
      Measurement weir,
      Measurement naive,
      Measurement floor) {
    public double walRatio() {
      return naive.walPerEvent() / weir.walPerEvent();
    }

    /** weir's WAL per entry over the floor's (the design's target: within 1.2×). */
    public double walOverFloor() {
      return ((double) weir.walBytes() / weir.inserts())
          / ((double) floor.walBytes() / floor.inserts());
    }

    public double collatingShare() {
      return (double) (burst - 1) / burst;
    }
  }

  public record Report(List<Result> results, int targetBurst) {}

  private FeedBenchmark() {}

  /**
   * Bursts of {@code burst} events, one person on one repository, a second apart; bursts
   * interleaved. (burst - 1) / burst of the events collate into an existing entry: 80 % for 5.
   */
  static List<ActivityEvent> generate(int events, int burst) {
    Instant t0 = Instant.parse("2026-01-05T09:00:00Z");
    List<ActivityEvent> out = new ArrayList<>(events);
    int entries = events / burst;
    for (int j = 0; j < burst; j++) {
      for (int i = 0; i < entries; i++) {
        Instant at = t0.plusMillis(i * 50L + j * 1_000L);
        out.add(event(i, j, at));
      }
    }
    out.sort((a, b) -> a.occurredAt().compareTo(b.occurredAt()));
    return out;
  }

  /**
   * Rounds: the j-th event of every entry, then a pause longer than the coalescing interval before
   * the next round, so that every event after the first of an entry reaches the store on its own.
   */
  static List<ActivityEvent> generatePaced(int entries, int burst) {
    Instant t0 = Instant.parse("2026-01-05T09:00:00Z");
    List<ActivityEvent> out = new ArrayList<>(entries * burst);
    for (int j = 0; j < burst; j++) {
      for (int i = 0; i < entries; i++) {
        out.add(event(i, j, t0.plusMillis(j * 2_000L + i)));
      }
    }
    return out;
  }

  private static ActivityEvent event(int entry, int n, Instant at) {
    return new ActivityEvent(
        "e-" + entry + "-" + n,
        "ws-" + (entry % 50),
        "actor-" + (entry % 997),
        "repository",
        "repo-" + entry,
        "push",
        at,
        new HashMap<>(Map.of("n", n)));
  }

  /**
   * The scenarios: replay-speed input at each burst size (the first of {@code bursts} is the one
   * the targets are judged on), then a paced input of {@code pacedEntries} entries.
   */
  public static Report run(LocalStack stack, int events, List<Integer> bursts, int pacedEntries)
      throws Exception {
    return run(stack, events, bursts, pacedEntries, 1);
  }

  /** The same, weir's job at {@code parallelism}. */
  public static Report run(
      LocalStack stack, int events, List<Integer> bursts, int pacedEntries, int parallelism)
      throws Exception {
    Connections connections = stack.up();
    FeedSettings settings = FeedSettings.defaults();
    List<Result> results = new ArrayList<>();
    for (int burst : bursts) {
      results.add(
          compare(
              stack,
              connections,
              settings,
              "replay speed",
              generate(events, burst),
              burst,
              0,
              parallelism));
    }
    if (pacedEntries > 0) {
      long pauseMs = settings.maxStalenessMs();
      results.add(
          compare(
              stack,
              connections,
              settings,
              "paced: rounds " + pauseMs + " ms apart",
              generatePaced(pacedEntries, bursts.get(0)),
              bursts.get(0),
              pauseMs,
              parallelism));
    }
    return new Report(results, bursts.get(0));
  }

  private static Result compare(
      LocalStack stack,
      Connections connections,
      FeedSettings settings,
      String scenario,
      List<ActivityEvent> input,
      int burst,
      long pauseBetweenRoundsMs,
      int parallelism)
      throws Exception {
    WeirConfig weirDb = BenchEnvironment.freshDatabase(stack, connections, "bench_feed_weir");
    Measurement weir =
        measure(
            "weir",
            weirDb,
            input.size(),
            () -> {
              StreamExecutionEnvironment env = BenchEnvironment.miniCluster();
              env.setParallelism(parallelism);
              DataStream<ActivityEvent> events = env.fromData(input, ActivityFeedJob.EVENT);
              if (pauseBetweenRoundsMs > 0) {
                events = events.map(new PauseBetweenRounds(pauseBetweenRoundsMs));
              }
              var stream =
                  events.assignTimestampsAndWatermarks(
                      WatermarkStrategy.<ActivityEvent>forBoundedOutOfOrderness(
                              Duration.ofMillis(settings.outOfOrdernessMs()))
                          .withTimestampAssigner((e, t) -> e.occurredAt().toEpochMilli()));
              ActivityFeedJob.collate(
                  stream, settings, ActivityFeedJob.storeSink(weirDb, settings));
              env.execute("bench activity-feed");
            });
    WeirConfig floorDb = BenchEnvironment.freshDatabase(stack, connections, "bench_feed_floor");
    List<Object[]> finalRows = new ArrayList<>();
    String[] columns = readEntries(weirDb, finalRows);
    Measurement floor =
        measure("floor", floorDb, input.size(), () -> insertOnce(floorDb, columns, finalRows));
    WeirConfig naiveDb = BenchEnvironment.freshDatabase(stack, connections, "bench_feed_naive");
    Measurement naive =
        measure("naive", naiveDb, input.size(), () -> naiveCollation(naiveDb, input, settings));
    return new Result(scenario, input.size(), burst, weir, naive, floor);
  }

  /** Every row of feed_entry, into {@code rows}; its column names. */
  private static String[] readEntries(WeirConfig config, List<Object[]> rows) throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM feed_entry")) {
      int n = rs.getMetaData().getColumnCount();
      String[] columns = new String[n];
      for (int i = 0; i < n; i++) {
        columns[i] = rs.getMetaData().getColumnName(i + 1);
      }
      while (rs.next()) {
        Object[] row = new Object[n];
        for (int i = 0; i < n; i++) {
          row[i] = rs.getObject(i + 1);
        }
        rows.add(row);
      }
      return columns;
    }
  }

  /** Each row INSERTed once, in batches of 1,000 per transaction: the floor. */
  private static void insertOnce(WeirConfig config, String[] columns, List<Object[]> rows)
      throws SQLException {
    String sql =
        "INSERT INTO feed_entry ("
            + String.join(", ", columns)
            + ") VALUES ("
            + String.join(", ", Collections.nCopies(columns.length, "?"))
            + ")";
    try (Connection c = PostgresConnectionProvider.open(config);
        PreparedStatement insert = c.prepareStatement(sql)) {
      c.setAutoCommit(false);
      int pending = 0;
      for (Object[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          insert.setObject(i + 1, row[i]);
        }
        insert.addBatch();
        if (++pending == 1000) {
          insert.executeBatch();
          c.commit();
          pending = 0;
        }
      }
      insert.executeBatch();
      c.commit();
    }
  }

  /** Holds the stream back before each new round (event ids e-entry-round), as a live input. */
  private static final class PauseBetweenRounds
      implements MapFunction<ActivityEvent, ActivityEvent> {
    private final long pauseMs;
    private int round;

    PauseBetweenRounds(long pauseMs) {
      this.pauseMs = pauseMs;
    }

    @Override
    public ActivityEvent map(ActivityEvent e) throws Exception {
      int r = Integer.parseInt(e.eventId().substring(e.eventId().lastIndexOf('-') + 1));
      if (r != round) {
        round = r;
        Thread.sleep(pauseMs);
      }
      return e;
    }
  }

  private static Measurement measure(
      String name, WeirConfig config, long events, ThrowingRunnable<Exception> work)
      throws Exception {
    String before;
    try (Connection c = PostgresConnectionProvider.open(config)) {
      c.createStatement().execute("CHECKPOINT");
      before = TableStats.walPosition(c);
    }
    long start = System.nanoTime();
    work.run();
    double seconds = (System.nanoTime() - start) / 1e9;
    try (Connection c = PostgresConnectionProvider.open(config)) {
      // The database's own WAL: with the server-wide position the floor's few megabytes moved
      // between runs by what other databases' autovacuum wrote in its window.
      // Its breakdown by part adds up to all of it (one read of the window).
      String after = TableStats.walPosition(c);
      List<WalRecords> byPart = WalRecords.ofTable(c, before, after, "feed_entry");
      long wal =
          byPart.isEmpty()
              ? TableStats.walBytesSince(c, before)
              : byPart.stream().mapToLong(WalRecords::bytes).sum();
      TableStats rows = TableStats.read(c, "feed_entry");
      return new Measurement(
          name,
          events,
          wal,
          rows.inserted(),
          rows.updated(),
          rows.deleted(),
          rows.dead(),
          seconds,
          byPart);
    }
  }

  /**
   * The same rule, written the naive way: each collated event replaces the row (insert + delete).
   * The rows carry the same columns as weir's, recent details included.
   */
  static void naiveCollation(
      WeirConfig config, Iterable<ActivityEvent> events, FeedSettings settings)
      throws SQLException {
    Map<CollationKey, FeedEntry> open = new HashMap<>();
    Map<CollationKey, String> rowId = new HashMap<>();
    Map<CollationKey, Integer> version = new HashMap<>();
    try (Connection c = PostgresConnectionProvider.open(config);
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO feed_entry (workspace_id, entry_id, actor_id, element_type,"
                    + " element_id, action, first_at, last_at, event_count, recent_details)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)");
        PreparedStatement delete =
            c.prepareStatement("DELETE FROM feed_entry WHERE workspace_id = ? AND entry_id = ?")) {
      c.setAutoCommit(false);
      int pending = 0;
      for (ActivityEvent e : events) {
        CollationKey key = CollationKey.of(e);
        long at = e.occurredAt().toEpochMilli();
        FeedEntry entry = open.get(key);
        if (entry != null
            && at - entry.lastAt <= settings.gapMs()
            && at - entry.firstAt <= settings.maxSpanMs()) {
          entry.setLastAt(Math.max(entry.lastAt, at));
          delete.setString(1, key.workspaceId());
          delete.setString(2, rowId.get(key));
          delete.addBatch();
          version.merge(key, 1, Integer::sum);
        } else {
          entry = FeedEntry.open(key, at, e.eventId());
          open.put(key, entry);
          version.put(key, 0);
        }
        entry.incrementCount();
        entry.addDetail(FeedEntry.Detail.of(e), settings.recentDetails());
        String id = entry.entryId + "-" + version.get(key);
        rowId.put(key, id);
        insert.setString(1, key.workspaceId());
        insert.setString(2, id);
        insert.setString(3, key.actorId());
        insert.setString(4, key.elementType());
        insert.setString(5, key.elementId());
        insert.setString(6, key.action());
        insert.setTimestamp(7, new Timestamp(entry.firstAt));
        insert.setTimestamp(8, new Timestamp(entry.lastAt));
        insert.setInt(9, entry.eventCount);
        insert.setString(10, entry.recentDetailsJson());
        insert.addBatch();
        if (++pending == 1000) {
          insert.executeBatch();
          delete.executeBatch();
          c.commit();
          pending = 0;
        }
      }
      insert.executeBatch();
      delete.executeBatch();
      c.commit();
    }
  }
}
