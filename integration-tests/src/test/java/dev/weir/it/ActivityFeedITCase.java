package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cli.load.GithubLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.FeedOptions;
import dev.weir.feed.FeedQuery;
import dev.weir.feed.FeedSettings;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(LocalStackExtension.class)
class ActivityFeedITCase {

  @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

  private static final String ROW =
      "entry_id || '|' || workspace_id || '|' || actor_id || '|' || element_type || '|' || element_id || '|' || action"
          + " || '|' || to_char(first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
          + " || '|' || to_char(last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || '|' || event_count";

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void theGithubSampleGivesTheIndependentlyComputedEntriesAndLoadingItAgainChangesNothing()
      throws Exception {
    WeirConfig config = jobConfig(TestDatabases.fresh(LocalStackExtension.config(), "it_feed"));
    FeedSettings settings = FeedSettings.from(config);
    List<String> expected = expectedRows(settings);
    String url = config.get(WeirOptions.POSTGRES_URL);

    JobClient job =
        JobRunner.start(
            new ActivityFeedJob(), StreamExecutionEnvironment.getExecutionEnvironment(), config);
    try {
      load(config);
      List<String> rows =
          Await.until(
              Duration.ofSeconds(90),
              () -> TestDatabases.strings(config, url, "SELECT " + ROW + " FROM feed_entry"),
              r -> r.size() >= expected.size());
      assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
      // recent_details is bounded and newest first.
      assertThat(
              TestDatabases.strings(
                  config,
                  url,
                  "SELECT count(*) FROM feed_entry WHERE jsonb_array_length(recent_details) <> least(event_count, 5)"))
          .containsExactly("0");

      List<String> versions =
          TestDatabases.strings(
              config, url, "SELECT entry_id || ':' || xmin FROM feed_entry ORDER BY 1");
      load(config);
      awaitProcessed(config, url);
      // Every event of the second load was a duplicate: no row was written again (xmin unchanged).
      assertThat(
              TestDatabases.strings(
                  config,
                  url,
                  "SELECT entry_id || ':' || xmin FROM feed_entry WHERE workspace_id NOT LIKE 'sentinel-%' ORDER BY 1"))
          .isEqualTo(versions);
    } finally {
      job.cancel().get();
    }
  }

  @Test
  void eventsAreInTheFeedBeforeTheWatermarkPassesThemAndAnEntryMergedAwayIsRetracted()
      throws Exception {
    // A watermark bound of an hour: nothing here is applied in order during the test, so whatever
    // reaches the table is the provisional view that keeps the feed within its staleness bound.
    WeirConfig config =
        jobConfig(TestDatabases.fresh(LocalStackExtension.config(), "it_feed_fresh"))
            .with(FeedOptions.OUT_OF_ORDERNESS, "1 h");
    String url = config.get(WeirOptions.POSTGRES_URL);
    String topic = config.get(FeedOptions.TOPIC);
    Instant t0 = Instant.parse("2026-11-21T10:00:00Z");
    String entries =
        "SELECT event_count || '@' || to_char(first_at AT TIME ZONE 'UTC', 'HH24:MI:SS')"
            + " FROM feed_entry ORDER BY first_at";

    JobClient job =
        JobRunner.start(
            new ActivityFeedJob(), StreamExecutionEnvironment.getExecutionEnvironment(), config);
    try {
      Kafka.produce(
          topic,
          0,
          List.of(
              event("acme", t0), event("acme", t0.plus(Duration.ofMinutes(10).plusSeconds(3)))));
      assertThat(
              Await.until(
                  Duration.ofSeconds(60),
                  () -> TestDatabases.strings(config, url, entries),
                  r -> r.size() == 2))
          .containsExactly("1@10:00:00", "1@10:10:03"); // more than the gap apart: two entries

      // An earlier event bridges the gap: one entry of three; the second row is retracted.
      Kafka.produce(topic, 0, List.of(event("acme", t0.plus(Duration.ofMinutes(9)))));
      assertThat(
              Await.until(
                  Duration.ofSeconds(60),
                  () -> TestDatabases.strings(config, url, entries),
                  r -> r.size() == 1))
          .containsExactly("3@10:00:00");
    } finally {
      job.cancel().get();
    }
  }

  @Test
  void theFeedQueryIsServedByTheIndexWithNoSort() throws Exception {
    WeirConfig config = TestDatabases.fresh(LocalStackExtension.config(), "it_feed_explain");
    try (Connection c = PostgresConnectionProvider.open(config)) {
      c.createStatement()
          .execute(
              "INSERT INTO feed_entry ("
                  + "workspace_id, entry_id, actor_id, element_type, element_id, action,"
                  + " first_at, last_at, event_count) SELECT 'ws-' || (i % 200), md5(i::text), 'actor-' || (i % 997), 'repository',"
                  + " 'repo-' || (i % 5000), 'push', now() - (i || ' s')::interval, now() - (i || ' s')::interval, 1"
                  + " FROM generate_series(1, 50000) AS i");
      c.createStatement().execute("ANALYZE feed_entry");
      String first = explain(c, FeedQuery.FIRST_PAGE.replace("?", "%s").formatted("'ws-7'", "50"));
      String next =
          explain(
              c,
              FeedQuery.NEXT_PAGE
                  .replace("?", "%s")
                  .formatted("'ws-7'", "now() - interval '1 hour'", "'m'", "50"));
      for (String plan : List.of(first, next)) {
        assertThat(plan).contains("Index Scan using feed_entry_by_recency").doesNotContain("Sort");
      }
      // The cursor is an index condition, not a filter applied after reading the rows.
      assertThat(next).containsPattern("Index Cond: .*last_at, entry_id\\) < ");
    }
  }

  @Test
  void aCrashBetweenCopyingToTheArchiveAndDeletingFromTheHotTableLeavesEveryEntryInExactlyOneTable()
      throws Exception {
    WeirConfig config =
        TestDatabases.withSeparateArchive(
                jobConfig(TestDatabases.fresh(LocalStackExtension.config(), "it_feed_crash")))
            .with(FeedOptions.ARCHIVE_AFTER, "1 h");
    FeedSettings settings = FeedSettings.from(config);
    String hotUrl = config.get(WeirOptions.POSTGRES_URL);
    String archiveUrl = Migrations.archiveUrl(config);
    // The first DELETE on the hot table fails, after the copy to the archive (another database)
    // has committed. (RETURN NEW in a statement trigger is ignored.)
    TestDatabases.failOnce(
        config, hotUrl, "BEFORE DELETE ON feed_entry FOR EACH STATEMENT", "true");

    JobClient job =
        JobRunner.start(
            new ActivityFeedJob(), StreamExecutionEnvironment.getExecutionEnvironment(), config);
    try {
      load(config);
      assertThat(
              Await.until(
                  Duration.ofSeconds(60), () -> TestDatabases.failedOnce(config, hotUrl), r -> r))
          .as("the injected crash happened")
          .isTrue();
      // After the restart, later events move the watermark so that the replayed moves run again.
      // Like a live stream, the input keeps flowing: a later event in each partition every 2 s,
      // up to 09:30, which makes due every entry whose last event is an hour before that.
      Instant sentinel = Instant.parse("2021-07-21T09:30:00Z");
      long watermark = sentinel.toEpochMilli() - settings.outOfOrdernessMs() - 1;
      List<ExpectedFeed.Entry> expected =
          ExpectedFeed.compute(GithubLoader.open(null), settings.gapMs(), settings.maxSpanMs());
      List<String> expectedArchived = new ArrayList<>();
      List<String> expectedHot = new ArrayList<>();
      for (ExpectedFeed.Entry e : expected) {
        (e.lastAt().toEpochMilli() + settings.archiveAfterMs() <= watermark
                ? expectedArchived
                : expectedHot)
            .add(e.row());
      }
      assertThat(expectedArchived).isNotEmpty();
      assertThat(expectedHot).isNotEmpty();

      long[] lastSent = {0};
      List<String> archived =
          Await.until(
              Duration.ofSeconds(90),
              () -> {
                if (System.nanoTime() - lastSent[0] > 2_000_000_000L) {
                  for (int p = 0; p < 2; p++) {
                    Kafka.produce(
                        config.get(FeedOptions.TOPIC),
                        p,
                        List.of(event("sentinel-" + p, sentinel)));
                  }
                  lastSent[0] = System.nanoTime();
                }
                return TestDatabases.strings(
                    config, archiveUrl, "SELECT " + ROW + " FROM feed_archive");
              },
              r -> r.size() >= expectedArchived.size());
      List<String> hot =
          Await.until(
              Duration.ofSeconds(30),
              () ->
                  TestDatabases.strings(
                      config,
                      hotUrl,
                      "SELECT "
                          + ROW
                          + " FROM feed_entry WHERE workspace_id NOT LIKE 'sentinel-%'"),
              r -> r.size() == expectedHot.size());
      assertThat(archived).containsExactlyInAnyOrderElementsOf(expectedArchived);
      assertThat(hot).containsExactlyInAnyOrderElementsOf(expectedHot);
    } finally {
      job.cancel().get();
    }
  }

  // --- helpers

  private WeirConfig jobConfig(WeirConfig base) {
    return base.with(
            FeedOptions.TOPIC,
            "it.activity." + run + "." + UUID.randomUUID().toString().substring(0, 4))
        .with(WeirOptions.DLQ_TOPIC, "it.dlq." + run)
        .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
  }

  private static void load(WeirConfig config) throws Exception {
    GithubLoader.Result result =
        GithubLoader.load(
            config, null, config.get(FeedOptions.TOPIC), new PrintWriter(new StringWriter()));
    assertThat(result.produced()).isEqualTo(369);
  }

  private static List<String> expectedRows(FeedSettings settings) throws Exception {
    return ExpectedFeed.compute(GithubLoader.open(null), settings.gapMs(), settings.maxSpanMs())
        .stream()
        .map(ExpectedFeed.Entry::row)
        .toList();
  }

  /**
   * Sends a later event to each partition and waits for both: everything before them was processed.
   */
  private static void awaitProcessed(WeirConfig config, String url) throws Exception {
    for (int p = 0; p < 2; p++) {
      Kafka.produce(
          config.get(FeedOptions.TOPIC),
          p,
          List.of(event("sentinel-" + p, Instant.parse("2021-07-21T09:10:00Z"))));
    }
    assertThat(
            Await.until(
                Duration.ofSeconds(60),
                () ->
                    TestDatabases.strings(
                        config,
                        url,
                        "SELECT workspace_id FROM feed_entry WHERE workspace_id LIKE 'sentinel-%'"),
                r -> r.size() == 2))
        .hasSize(2);
  }

  static String event(String workspace, Instant at) {
    return new String(
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class)
            .encode(
                new ActivityEvent(
                    UUID.randomUUID().toString(),
                    workspace,
                    "sentinel",
                    "repository",
                    workspace + "/x",
                    "push",
                    at,
                    null)),
        StandardCharsets.UTF_8);
  }

  private static String explain(Connection c, String sql) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        plan.append(rs.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }
}
