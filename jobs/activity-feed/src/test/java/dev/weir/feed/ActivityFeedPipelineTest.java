package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.testing.CollectingSink;
import dev.weir.common.testing.OpenSource;
import dev.weir.schema.ActivityEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * activity-feed's pipeline on a MiniCluster, with no service: events in, through the seam {@link
 * ActivityFeedJob#build} uses ({@link ActivityFeedJob#collate}), to a collecting store, with the
 * input left open as a topic is (archival and the writes' coalescing run on timers).
 */
class ActivityFeedPipelineTest {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

  /** gap 10 min, max span 1 h, out of orderness 5 s, staleness 200 ms, archive after 1 day. */
  private static final FeedSettings SETTINGS =
      new FeedSettings(
          Duration.ofMinutes(10).toMillis(),
          Duration.ofHours(1).toMillis(),
          5_000,
          200,
          Duration.ofDays(1).toMillis(),
          3,
          Duration.ofHours(2).toMillis(),
          1000);

  private final List<ActivityEvent> events = new ArrayList<>();

  @Test
  void aBurstBecomesOneEntryDuplicatesCountOnceAndAGapStartsAnother() throws Exception {
    event("e1", "alice", T0);
    event("e3", "alice", T0.plusSeconds(120));
    event("e2", "alice", T0.plusSeconds(60)); // after a later one: still joins the burst
    event("e2", "alice", T0.plusSeconds(60)); // a duplicate
    event("e4", "alice", T0.plusSeconds(180));
    event("e5", "alice", T0.plusSeconds(180 + 11 * 60)); // after a gap over 10 min
    event("e6", "bob", T0.plusSeconds(30));
    event("tick", "carol", T0.plusSeconds(3600)); // moves the watermark past every gap

    Map<String, FeedEntry> entries = run(e -> e.size() >= 4);

    assertThat(entries.values())
        .extracting(e -> e.actorId + ":" + e.eventCount)
        .containsExactlyInAnyOrder("alice:4", "alice:1", "bob:1", "carol:1");
    FeedEntry burst =
        entries.values().stream().filter(e -> e.eventCount == 4).findFirst().orElseThrow();
    assertThat(burst.firstAt).isEqualTo(T0.toEpochMilli());
    assertThat(burst.lastAt).isEqualTo(T0.plusSeconds(180).toEpochMilli());
  }

  @Test
  void anEntryOlderThanArchiveAfterIsArchivedByTheJobsOwnTimerAndANewerOneStays() throws Exception {
    event("old", "alice", T0);
    event("new", "bob", T0.plus(Duration.ofDays(2)));

    run(e -> archived.size() == 1);

    assertThat(archived).extracting(e -> e.actorId).containsExactly("alice");
  }

  private final List<FeedEntry> archived = new ArrayList<>();

  /**
   * Runs the pipeline until {@code done} holds of the store's entries (hot ones, by entry id), then
   * cancels it; returns the hot entries.
   */
  private Map<String, FeedEntry> run(Predicate<Map<String, FeedEntry>> done) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.getConfig().setAutoWatermarkInterval(50);
    DataStream<ActivityEvent> input =
        env.addSource(OpenSource.of("activity", events), "activity", ActivityFeedJob.EVENT)
            .assignTimestampsAndWatermarks(
                WatermarkStrategy.<ActivityEvent>forBoundedOutOfOrderness(
                        Duration.ofMillis(SETTINGS.outOfOrdernessMs()))
                    .withTimestampAssigner((e, ts) -> e.occurredAt().toEpochMilli()));
    ActivityFeedJob.collate(input, SETTINGS, CollectingSink.named("feed"));
    JobClient job = env.executeAsync("activity-feed pipeline");
    Map<String, FeedEntry> hot = new TreeMap<>();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      do {
        Thread.sleep(50);
        hot.clear();
        archived.clear();
        // The store's view: the writes of each entry applied in order.
        for (FeedWrite w : CollectingSink.<FeedWrite>values("feed")) {
          switch (w.kind) {
            case UPSERT -> hot.put(w.entry.entryId, w.entry);
            case ARCHIVE -> {
              hot.remove(w.entry.entryId);
              archived.add(w.entry);
            }
            case RETRACT -> hot.remove(w.entry.entryId);
          }
        }
      } while (!done.test(hot) && System.nanoTime() < deadline);
      if (job.getJobStatus().get().isGloballyTerminalState()) {
        job.getJobExecutionResult().get(); // throws with the job's failure
      }
    } finally {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get();
      }
    }
    return hot;
  }

  private void event(String id, String actor, Instant at) {
    events.add(new ActivityEvent(id, "w1", actor, "doc", "d1", "edited", at, Map.of()));
  }
}
