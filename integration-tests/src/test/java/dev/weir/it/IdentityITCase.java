package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityOptions;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.TrackingEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(LocalStackExtension.class)
class IdentityITCase {

  @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

  private static final Instant T0 = Instant.parse("2026-11-21T08:00:00Z");
  private static final String ROW =
      "distinct_id || '|' || canonical_id || '|' || coalesce(to_char(earliest_seen AT TIME ZONE 'UTC',"
          + " 'HH24:MI'), '-') || '|' || identify_seen || '|' || alias_seen";

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final Map<String, String> expectedCanonical = new LinkedHashMap<>();
  private int sent;

  @Test
  void interleavedIdentityAndTrackingEventsEndWithTheRightTableAndEachEventOnceThroughACrash()
      throws Exception {
    WeirConfig config =
        TestDatabases.fresh(LocalStackExtension.config(), "it_identity")
            .with(IdentityOptions.TRACKING_TOPIC, "it.tracking." + run)
            .with(IdentityOptions.IDENTITY_TOPIC, "it.identity." + run)
            .with(IdentityOptions.ENRICHED_TOPIC, "it.enriched." + run)
            .with(WeirOptions.DLQ_TOPIC, "it.dlq.identity." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    String url = config.get(WeirOptions.POSTGRES_URL);
    String enriched = config.get(IdentityOptions.ENRICHED_TOPIC);

    JobClient job =
        JobRunner.start(
            new IdentityJob(), StreamExecutionEnvironment.getExecutionEnvironment(), config);
    try {
      // 1. Anonymous ids: each maps to itself; an older event lowers earliest_seen.
      track(config, "a1", 10, "a1");
      track(config, "a1", 5, "a1");
      track(config, "a1", 7, "a1"); // later than 5: nothing written
      track(config, "a2", 20, "a2");
      track(config, "b1", 30, "b1");
      awaitEnriched(enriched);

      // 2. identify, alias, a conflicting identify (DLQ), merge.
      identity(config, IdentityEvent.Type.IDENTIFY, "a1", "user-A");
      identity(config, IdentityEvent.Type.ALIAS, "a2", "a1");
      identity(config, IdentityEvent.Type.IDENTIFY, "a1", "user-B");
      identity(config, IdentityEvent.Type.MERGE, "b1", "a1");
      assertThat(
              Await.until(
                  Duration.ofSeconds(60),
                  () ->
                      TestDatabases.strings(
                          config,
                          url,
                          "SELECT canonical_id FROM identity_mapping WHERE distinct_id = 'b1'"),
                  r -> r.equals(List.of("user-A"))))
          .containsExactly("user-A");
      // The change reaches the enricher on its own path (two topics have no common order); give it
      // a moment, as docs/identity.md says, before sending events that must see it.
      Thread.sleep(2_000);

      // A real failure from PostgreSQL in the middle: the next earliest_seen write of b1 fails
      // once; the job restarts from its last checkpoint and replays.
      TestDatabases.failOnce(
          config,
          url,
          "BEFORE UPDATE ON identity_mapping FOR EACH ROW",
          "NEW.distinct_id = 'b1' AND NEW.earliest_seen IS DISTINCT FROM OLD.earliest_seen");

      // 3. After the changes: everyone is user-A; b1 sees an older event.
      track(config, "a1", 40, "user-A");
      track(config, "a2", 15, "user-A");
      track(config, "b1", 25, "user-A");
      track(config, "b1", 50, "user-A");
      List<EnrichedTrackingEvent> out = awaitEnriched(enriched);
      assertThat(TestDatabases.failedOnce(config, url)).as("the injected crash happened").isTrue();

      Map<String, String> canonicalByEvent = new HashMap<>();
      for (EnrichedTrackingEvent e : out) {
        assertThat(canonicalByEvent.put(e.eventId(), e.canonicalId()))
            .as("event %s emitted once", e.eventId())
            .isNull();
      }
      assertThat(canonicalByEvent).isEqualTo(expectedCanonical);

      assertThat(
              Await.until(
                  Duration.ofSeconds(30),
                  () ->
                      TestDatabases.strings(
                          config, url, "SELECT " + ROW + " FROM identity_mapping ORDER BY 1"),
                  r -> r.contains("b1|user-A|08:25|false|false")))
          .containsExactly(
              "a1|user-A|08:05|true|false",
              "a2|user-A|08:15|false|true",
              "b1|user-A|08:25|false|false");

      List<DeadLetter> dead =
          Kafka.readCommitted(
                  config.get(WeirOptions.DLQ_TOPIC), Duration.ofSeconds(30), r -> r.size() >= 1)
              .stream()
              .map(r -> decode(r.value(), EventSchema.DLQ, DeadLetter.class))
              .toList();
      assertThat(dead)
          .singleElement()
          .satisfies(
              d ->
                  assertThat(d.reason())
                      .isEqualTo(
                          "distinct_id 'a1' is already identified as 'user-A'; identify as 'user-B' rejected"));
    } finally {
      job.cancel().get();
    }
  }

  // --- helpers

  private void track(WeirConfig config, String distinctId, int minute, String canonical) {
    String id = "t" + (++sent);
    expectedCanonical.put(id, canonical);
    TrackingEvent e =
        new TrackingEvent(
            id,
            "p1",
            distinctId,
            "page_view",
            T0.plus(Duration.ofMinutes(minute)),
            new HashMap<>(Map.of("n", sent)));
    send(config.get(IdentityOptions.TRACKING_TOPIC), EventSchema.TRACKING_EVENTS, e);
  }

  private void identity(
      WeirConfig config, IdentityEvent.Type type, String distinctId, String targetId) {
    IdentityEvent e =
        new IdentityEvent(
            UUID.randomUUID().toString(), type, "p1", distinctId, targetId, T0.plusSeconds(sent));
    send(config.get(IdentityOptions.IDENTITY_TOPIC), EventSchema.IDENTITY_EVENTS, e);
  }

  /** One event, encoded and validated by the project's codec, to partition 0 (in order). */
  @SuppressWarnings("unchecked")
  private static <T> void send(String topic, EventSchema schema, T event) {
    byte[] json = EventCodec.of(schema, (Class<T>) event.getClass()).encode(event);
    Kafka.produce(topic, 0, List.of(new String(json, StandardCharsets.UTF_8)));
  }

  private List<EnrichedTrackingEvent> awaitEnriched(String topic) {
    List<EnrichedTrackingEvent> out = new ArrayList<>();
    Kafka.readCommitted(topic, Duration.ofSeconds(90), r -> r.size() >= sent)
        .forEach(
            r ->
                out.add(
                    decode(r.value(), EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class)));
    assertThat(out).hasSizeGreaterThanOrEqualTo(sent);
    return out;
  }

  /** Decoded and validated against the topic's schema, as a consumer would. */
  private static <T> T decode(byte[] json, EventSchema schema, Class<T> type) {
    try {
      return EventCodec.of(schema, type).decode(json);
    } catch (InvalidEventException e) {
      throw new AssertionError(e.getMessage(), e);
    }
  }
}
