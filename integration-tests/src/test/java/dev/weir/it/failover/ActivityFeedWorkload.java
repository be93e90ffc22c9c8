package dev.weir.it.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.FeedOptions;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Bursts of five actions by one actor on one repository, a second apart: each burst must become
 * exactly one feed entry of five events (a lost event makes it four, a duplicate applied six).
 */
final class ActivityFeedWorkload extends Workload {

  private static final int EVENTS_PER_BATCH = 10;
  private static final int BURST = 5;
  private static final int WORKSPACES = 4;
  private static final Instant T0 = Instant.parse("2026-11-21T08:00:00Z");

  ActivityFeedWorkload(String run) {
    super(List.of(ActivityFeedJob.NAME), config(run));
  }

  private static WeirConfig config(String run) {
    WeirConfig config =
        TestDatabases.fresh(LocalStackExtension.config(), "it_failover_feed")
            .with(FeedOptions.TOPIC, "it.failover.activity." + run)
            .with(WeirOptions.DLQ_TOPIC, "it.failover.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    KafkaTopics.createTopicsIfMissing(config, new ActivityFeedJob().topics(config), 2);
    return config;
  }

  @Override
  void send(int n) {
    List<ProducerRecord<byte[], byte[]>> batch = new ArrayList<>();
    for (int i = 1; i <= EVENTS_PER_BATCH; i++) {
      int event = (n - 1) * EVENTS_PER_BATCH + i;
      int burst = (event - 1) / BURST;
      // One workspace's events stay in one partition, in order (as the loaders key them).
      int partition = (burst % WORKSPACES) % 2;
      batch.add(new ProducerRecord<>(config.get(FeedOptions.TOPIC), partition, null, event(event)));
    }
    Kafka.sendAll(producer, batch);
  }

  /** One entry per burst, each of five events from its first second to its last. */
  @Override
  void verify(int batches) throws Exception {
    int bursts = batches * EVENTS_PER_BATCH / BURST;
    List<String> expected = new ArrayList<>();
    for (int burst = 0; burst < bursts; burst++) {
      expected.add(
          String.format(
              "a%d|%d|%s|%s",
              burst,
              BURST,
              T0.plusSeconds(burst * BURST + 1L),
              T0.plusSeconds(burst * BURST + (long) BURST)));
    }
    String url = config.get(WeirOptions.POSTGRES_URL);
    String rows =
        "SELECT actor_id || '|' || event_count"
            + " || '|' || to_char(first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
            + " || '|' || to_char(last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
            + " FROM feed_entry";
    List<String> entries =
        Await.until(
            Duration.ofSeconds(120),
            () -> TestDatabases.strings(config, url, rows),
            r -> r.size() >= expected.size() && r.containsAll(expected));
    assertThat(entries).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Override
  String describe(int batches) {
    int events = batches * EVENTS_PER_BATCH;
    return String.format("%,d events, %,d feed entries", events, events / BURST);
  }

  private static byte[] event(int n) {
    int burst = (n - 1) / BURST;
    return EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class)
        .encode(
            new ActivityEvent(
                "e" + n,
                "ws-" + (burst % WORKSPACES),
                "a" + burst,
                "repository",
                "ws-" + (burst % WORKSPACES) + "/repo-" + burst,
                "push",
                T0.plusSeconds(n),
                null));
  }
}
