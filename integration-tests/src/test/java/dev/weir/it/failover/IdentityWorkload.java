package dev.weir.it.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityOptions;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.TrackingEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Tracking events of 50 anonymous visitors; each must come out enriched exactly once. */
final class IdentityWorkload extends Workload {

  private static final int EVENTS_PER_BATCH = 50;
  private static final int VISITORS = 50;

  IdentityWorkload(String run) {
    super(List.of(IdentityJob.NAME), config(run));
  }

  private static WeirConfig config(String run) {
    WeirConfig config =
        TestDatabases.fresh(LocalStackExtension.config(), "it_failover_identity")
            .with(IdentityOptions.TRACKING_TOPIC, "it.failover.tracking." + run)
            .with(IdentityOptions.IDENTITY_TOPIC, "it.failover.identity." + run)
            .with(IdentityOptions.ENRICHED_TOPIC, "it.failover.enriched." + run)
            .with(WeirOptions.DLQ_TOPIC, "it.failover.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    KafkaTopics.createTopicsIfMissing(config, new IdentityJob().topics(config), 2);
    return config;
  }

  @Override
  void send(int n) {
    List<ProducerRecord<byte[], byte[]>> batch = new ArrayList<>();
    for (int i = 1; i <= EVENTS_PER_BATCH; i++) {
      batch.add(
          new ProducerRecord<>(
              config.get(IdentityOptions.TRACKING_TOPIC), event((n - 1) * EVENTS_PER_BATCH + i)));
    }
    Kafka.sendAll(producer, batch);
  }

  /** Every event sent is in the enriched topic exactly once, with its visitor's canonical id. */
  @Override
  void verify(int batches) throws InvalidEventException {
    int total = batches * EVENTS_PER_BATCH;
    EventCodec<EnrichedTrackingEvent> codec =
        EventCodec.of(EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class);
    Map<String, String> canonicalByEvent = new HashMap<>();
    var out =
        Kafka.readCommitted(
            config.get(IdentityOptions.ENRICHED_TOPIC),
            Duration.ofSeconds(120),
            r -> r.size() >= total);
    for (var record : out) {
      EnrichedTrackingEvent e = codec.decode(record.value());
      assertThat(canonicalByEvent.put(e.eventId(), e.canonicalId()))
          .as("event %s emitted once", e.eventId())
          .isNull();
    }
    assertThat(canonicalByEvent).as("every event, none lost").hasSize(total);
    for (int n = 1; n <= total; n++) {
      assertThat(canonicalByEvent.get("e" + n)).isEqualTo("v" + (n % VISITORS));
    }
  }

  @Override
  String describe(int batches) {
    return String.format("%,d events", batches * EVENTS_PER_BATCH);
  }

  private static byte[] event(int n) {
    return EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class)
        .encode(
            new TrackingEvent(
                "e" + n,
                "p1",
                "v" + (n % VISITORS),
                "page_view",
                Instant.parse("2026-11-21T08:00:00Z").plusSeconds(n),
                new HashMap<>(Map.of("n", n))));
  }
}
