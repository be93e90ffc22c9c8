package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.identity.Enricher;
import dev.weir.identity.IdentityKey;
import dev.weir.identity.IdentityRecord;
import dev.weir.identity.MappingChange;
import dev.weir.identity.PostgresIdentityStore;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.TrackingEvent;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The enricher's cache, batched lookups, order and earliest_seen rules, in a test harness (state
 * and timers visible) against the real identity table in PostgreSQL.
 */
@ExtendWith(LocalStackExtension.class)
class EnricherITCase {

  private static final Instant T0 = Instant.parse("2026-11-21T08:00:00Z");
  private static final AtomicReference<PostgresIdentityStore> STORE = new AtomicReference<>();
  private static WeirConfig config;

  private KeyedTwoInputStreamOperatorTestHarness<
          IdentityKey, TrackingEvent, MappingChange, EnrichedTrackingEvent>
      harness;

  @BeforeEach
  void open() throws Exception {
    config = TestDatabases.fresh(LocalStackExtension.config(), "it_enricher");
    try (Connection c = PostgresConnectionProvider.open(config)) {
      c.createStatement()
          .execute(
              "INSERT INTO identity_mapping (project_id, distinct_id, canonical_id, earliest_seen)"
                  + " VALUES ('p', 'known', 'user-1', '2026-11-21T08:30:00Z')");
    }
    Enricher enricher =
        new Enricher(
            () -> {
              PostgresIdentityStore store =
                  new PostgresIdentityStore(PostgresConnectionProvider.open(config));
              STORE.set(store);
              return store;
            },
            Duration.ofMinutes(10),
            500,
            Duration.ofMillis(20));
    harness =
        new KeyedTwoInputStreamOperatorTestHarness<>(
            new KeyedCoProcessOperator<>(enricher),
            e -> new IdentityKey(e.projectId(), e.distinctId()),
            MappingChange::key,
            TypeInformation.of(IdentityKey.class));
    harness.setup();
    harness.open();
    harness.setProcessingTime(0);
  }

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  @Test
  void missesOfOneWindowShareOneQueryThenRepeatsCostNone() throws Exception {
    for (int i = 0; i < 30; i++) {
      track("e" + i, i % 3 == 0 ? "known" : "anon-" + (i % 3), 40 + i);
    }
    assertThat(harness.extractOutputValues()).isEmpty(); // parked until the lookup
    assertThat(harness.numProcessingTimeTimers()).isEqualTo(3); // one per waiting key
    harness.setProcessingTime(20);
    assertThat(STORE.get().statements()).isEqualTo(1); // three keys, one query

    List<EnrichedTrackingEvent> out = harness.extractOutputValues();
    assertThat(out).hasSize(30);
    assertThat(out)
        .filteredOn(e -> e.distinctId().equals("known"))
        .allSatisfy(e -> assertThat(e.canonicalId()).isEqualTo("user-1"));
    assertThat(out)
        .filteredOn(e -> e.distinctId().equals("anon-1"))
        .allSatisfy(e -> assertThat(e.canonicalId()).isEqualTo("anon-1"));
    // Per key, in arrival order.
    assertThat(out)
        .filteredOn(e -> e.distinctId().equals("anon-2"))
        .extracting(EnrichedTrackingEvent::eventId)
        .containsExactly("e2", "e5", "e8", "e11", "e14", "e17", "e20", "e23", "e26", "e29");
    // Writes: the two first sightings only (known's events are all later than its earliest_seen).
    assertThat(writes())
        .extracting(r -> r.distinctId() + ":" + r.changedColumns() + ":" + r.isStored())
        .containsExactlyInAnyOrder("anon-1:[EARLIEST_SEEN]:false", "anon-2:[EARLIEST_SEEN]:false");

    track("again", "anon-1", 100);
    harness.setProcessingTime(100);
    assertThat(STORE.get().statements()).isEqualTo(1); // a cache hit
    assertThat(harness.extractOutputValues()).hasSize(31);
  }

  @Test
  void anOlderEventLowersEarliestSeenNamingOnlyThatColumn() throws Exception {
    track("e1", "known", 45); // later than 08:30: nothing to write
    harness.setProcessingTime(20);
    track("e2", "known", 10); // 08:10: lowers it
    assertThat(writes())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.isStored()).isTrue();
              assertThat(r.changedColumns()).containsExactly(IdentityRecord.Column.EARLIEST_SEEN);
              assertThat(r.earliestSeen()).isEqualTo(T0.plusSeconds(600).toEpochMilli());
            });
  }

  @Test
  void aMappingChangeUpdatesTheCacheWithoutALookup() throws Exception {
    track("e1", "known", 40);
    harness.setProcessingTime(20);
    harness.processElement2(new StreamRecord<>(new MappingChange("p", "known", "user-2")));
    track("e2", "known", 41);
    assertThat(harness.extractOutputValues())
        .extracting(EnrichedTrackingEvent::canonicalId)
        .containsExactly("user-1", "user-2");
    assertThat(STORE.get().statements()).isEqualTo(1);
  }

  @Test
  void anExpiredEntryIsLookedUpAgain() throws Exception {
    harness.setStateTtlProcessingTime(0);
    track("e1", "known", 40);
    harness.setProcessingTime(20);
    harness.setStateTtlProcessingTime(Duration.ofMinutes(11).toMillis()); // past the 10 min TTL
    track("e2", "known", 41);
    assertThat(harness.extractOutputValues()).hasSize(1); // e2 waits for a new lookup
    harness.setProcessingTime(40);
    assertThat(harness.extractOutputValues()).hasSize(2);
    assertThat(STORE.get().statements()).isEqualTo(2);
  }

  // --- helpers

  private void track(String id, String distinctId, int minute) throws Exception {
    harness.processElement1(
        new StreamRecord<>(
            new TrackingEvent(
                id,
                "p",
                distinctId,
                "page_view",
                T0.plus(Duration.ofMinutes(minute)),
                new HashMap<>(Map.of()))));
  }

  private List<IdentityRecord> writes() {
    return harness.getSideOutput(Enricher.WRITES).stream().map(StreamRecord::getValue).toList();
  }
}
