package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.testing.CollectingSink;
import dev.weir.schema.ActivityEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * activity-feed's pipeline on a MiniCluster, with no service: events from memory, with the job's
 * watermarks, through {@link ActivityFeedJob#collate} (the seam the job's build uses) into a sink
 * that collects the writes, read back as the store would hold them.
 */
class ActivityFeedPipelineTest {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final Instant T0 = Instant.parse("2021-07-21T06:00:00Z");
  private static final long MIN = 60_000;

  /** gap 10 min, max span 1 h, out-of-orderness 5 s, archive after 1 d, ids kept 1 h. */
  private static final FeedSettings SETTINGS =
      new FeedSettings(
          10 * MIN, 60 * MIN, 5_000, 2_000, Duration.ofDays(1).toMillis(), 3, 60 * MIN, 100);

  private static final CollationKey ANA_PUSH =
      new CollationKey("acme", "ana", "repository", "acme/weir", "push");
  private static final CollationKey BO_PUSH =
      new CollationKey("acme", "bo", "repository", "acme/other", "push");
  private static final CollationKey ANA_STARRED =
      new CollationKey("acme", "ana", "repository", "acme/weir", "starred");

  @Test
  void burstsCollateDuplicatesCountOnceGapsSplitAndOldEntriesAreArchived() throws Exception {
    List<ActivityEvent> events =
        List.of(
            event("a1", ANA_PUSH, 0),
            event("a2", ANA_PUSH, 1_000),
            event("a4", ANA_PUSH, 3_000),
            event("a3", ANA_PUSH, 2_000), // out of order, within the bound
            event("a2", ANA_PUSH, 1_000), // a duplicate
            event("a5", ANA_PUSH, 4_000),
            event("b1", BO_PUSH, 30_000),
            event("a6", ANA_PUSH, 4_000 + 10 * MIN + 1), // past the gap: a second entry
            event("c1", ANA_STARRED, 2 * 24 * 60 * MIN)); // two days on: the others archived

    Store store = run(events);

    String burst = FeedEntry.entryId(ANA_PUSH, T0.toEpochMilli(), "a1");
    String afterGap = FeedEntry.entryId(ANA_PUSH, T0.toEpochMilli() + 4_000 + 10 * MIN + 1, "a6");
    String other = FeedEntry.entryId(BO_PUSH, T0.toEpochMilli() + 30_000, "b1");
    String starred = FeedEntry.entryId(ANA_STARRED, T0.toEpochMilli() + 2 * 24 * 60 * MIN, "c1");
    assertThat(store.archive).containsOnlyKeys(burst, afterGap, other);
    FeedEntry archived = store.archive.get(burst);
    assertThat(archived.eventCount).isEqualTo(5);
    assertThat(archived.firstAt).isEqualTo(T0.toEpochMilli());
    assertThat(archived.lastAt).isEqualTo(T0.toEpochMilli() + 4_000);
    assertThat(archived.recentDetails).extracting(d -> d.eventId).containsExactly("a5", "a4", "a3");
    assertThat(store.archive.get(afterGap).eventCount).isEqualTo(1);
    assertThat(store.archive.get(other).eventCount).isEqualTo(1);
    // The end of the input writes what is pending and archives nothing.
    assertThat(store.hot).containsOnlyKeys(starred);
    assertThat(store.hot.get(starred).eventCount).isEqualTo(1);
  }

  /** The writes, applied in order as the store applies them. */
  private record Store(Map<String, FeedEntry> hot, Map<String, FeedEntry> archive) {}

  private static Store run(List<ActivityEvent> events) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.getConfig().enableObjectReuse(); // as the job's build sets it
    DataStream<ActivityEvent> source =
        env.fromData(events, ActivityFeedJob.EVENT)
            .assignTimestampsAndWatermarks(watermarks())
            .setParallelism(1); // as at the job's source, one reader in order
    ActivityFeedJob.collate(source, SETTINGS, CollectingSink.named("feed"));
    env.execute("activity-feed pipeline");

    Store store = new Store(new HashMap<>(), new HashMap<>());
    for (FeedWrite w : CollectingSink.<FeedWrite>values("feed")) {
      switch (w.kind) {
        case UPSERT -> store.hot.put(w.entry.entryId, w.entry);
        case ARCHIVE -> {
          store.hot.remove(w.entry.entryId);
          store.archive.put(w.entry.entryId, w.entry);
        }
        case RETRACT -> store.hot.remove(w.entry.entryId);
      }
    }
    return store;
  }

  /**
   * The job's watermarks: the event's time, out of order by up to {@code feed.out-of-orderness}.
   * Emitted after every event, not on a timer, so that the test does not depend on timing.
   */
  private static WatermarkStrategy<ActivityEvent> watermarks() {
    Duration bound = Duration.ofMillis(SETTINGS.outOfOrdernessMs());
    return WatermarkStrategy.<ActivityEvent>forGenerator(context -> new EachEvent(bound))
        .withTimestampAssigner((event, timestamp) -> event.occurredAt().toEpochMilli());
  }

  private static final class EachEvent extends BoundedOutOfOrdernessWatermarks<ActivityEvent> {
    EachEvent(Duration bound) {
      super(bound);
    }

    @Override
    public void onEvent(ActivityEvent event, long timestamp, WatermarkOutput output) {
      super.onEvent(event, timestamp, output);
      onPeriodicEmit(output);
    }
  }

  private static ActivityEvent event(String id, CollationKey key, long offsetMs) {
    return new ActivityEvent(
        id,
        key.workspaceId(),
        key.actorId(),
        key.elementType(),
        key.elementId(),
        key.action(),
        T0.plusMillis(offsetMs),
        Map.of("n", id));
  }
}
