package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.TrackingEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The enricher's keyed state is bounded by the keys seen within the cache's time to live. */
class EnricherStateTest {

  private static final Duration CACHE_TTL = Duration.ofHours(1);

  @Test
  void theCacheHoldsTheKeysOfOneTimeToLive() throws Exception {
    try (var harness = harness()) {
      harness.setProcessingTime(0);
      harness.setStateTtlProcessingTime(0);
      send(harness, "old-", 1_000);
      harness.setProcessingTime(100); // the lookups' timers: every event enriched
      assertThat(keys(harness, "mapping")).hasSize(1_000);
      assertThat(keys(harness, "waiting")).isEmpty();
      assertThat(harness.extractOutputValues()).hasSize(1_000);

      // An hour later, other visitors: the expired entries are dropped as the state is used
      // (incremental cleanup on heap, compaction on RocksDB), not kept for good.
      harness.setStateTtlProcessingTime(CACHE_TTL.toMillis() + 1);
      send(harness, "new-", 1_000);
      harness.setProcessingTime(CACHE_TTL.toMillis() + 200);
      List<IdentityKey> held = keys(harness, "mapping");
      assertThat(held).hasSize(1_000).allMatch(k -> k.distinctId().startsWith("new-"));
    }
  }

  @Test
  void aHitKeepsItsMappingCachedWritingItAtMostOncePerTenthOfTheTimeToLive() throws Exception {
    long ttl = CACHE_TTL.toMillis();
    try (var harness = harness()) {
      at(harness, 0);
      send(harness, "v-", 2);
      at(harness, 100); // looked up and cached (written) at 100
      assertThat(harness.extractOutputValues()).hasSize(2);

      at(harness, 200);
      send(harness, "v-", 1); // v-0 hit 100 ms after its write: no refresh, its TTL counts from 100
      at(harness, ttl / 2);
      sendOne(harness, "v-1"); // v-1 hit half a TTL after its write: refreshed
      assertThat(harness.extractOutputValues()).hasSize(4);

      at(harness, ttl + 150);
      sendOne(harness, "v-0"); // expired: a miss, waiting for the next lookup
      sendOne(harness, "v-1"); // still cached: enriched at once
      assertThat(harness.extractOutputValues())
          .hasSize(5)
          .last()
          .extracting(e -> e.distinctId())
          .isEqualTo("v-1");
    }
  }

  /** Processing time and the TTL's clock, which are one clock outside a test harness. */
  private static void at(KeyedTwoInputStreamOperatorTestHarness<?, ?, ?, ?> harness, long millis)
      throws Exception {
    harness.setStateTtlProcessingTime(millis);
    harness.setProcessingTime(millis);
  }

  private static void sendOne(
      KeyedTwoInputStreamOperatorTestHarness<
              IdentityKey, TrackingEvent, MappingChange, EnrichedTrackingEvent>
          harness,
      String distinctId)
      throws Exception {
    harness.processElement1(
        new TrackingEvent(
            distinctId + "-" + System.nanoTime(),
            "p1",
            distinctId,
            "page_view",
            Instant.EPOCH,
            new HashMap<>()),
        0);
  }

  private static void send(
      KeyedTwoInputStreamOperatorTestHarness<
              IdentityKey, TrackingEvent, MappingChange, EnrichedTrackingEvent>
          harness,
      String prefix,
      int visitors)
      throws Exception {
    for (int i = 0; i < visitors; i++) {
      harness.processElement1(
          new TrackingEvent(
              prefix + i,
              "p1",
              prefix + i,
              "page_view",
              Instant.EPOCH,
              new HashMap<>(Map.of("n", i))),
          0);
    }
  }

  @SuppressWarnings("unchecked")
  private static List<IdentityKey> keys(
      KeyedTwoInputStreamOperatorTestHarness<IdentityKey, ?, ?, ?> harness, String state)
      throws Exception {
    return harness
        .getOperator()
        .getKeyedStateBackend()
        .getKeys(state, VoidNamespace.INSTANCE)
        .map(k -> (IdentityKey) k)
        .toList();
  }

  private static KeyedTwoInputStreamOperatorTestHarness<
          IdentityKey, TrackingEvent, MappingChange, EnrichedTrackingEvent>
      harness() throws Exception {
    var h =
        new KeyedTwoInputStreamOperatorTestHarness<>(
            new KeyedCoProcessOperator<>(
                new Enricher(EmptyStore::new, CACHE_TTL, 100, Duration.ofMillis(20))),
            (TrackingEvent e) -> new IdentityKey(e.projectId(), e.distinctId()),
            MappingChange::key,
            TypeInformation.of(IdentityKey.class));
    h.open();
    return h;
  }

  /** An identity table that holds nobody yet: every visitor is new. */
  private static final class EmptyStore implements IdentityStore {
    @Override
    public Map<IdentityKey, IdentityRecord> get(Collection<IdentityKey> keys) {
      return Map.of();
    }

    @Override
    public List<IdentityRecord> byCanonical(String projectId, String canonicalId, int limit) {
      return List.of();
    }

    @Override
    public Void write(Collection<IdentityRecord> records) {
      return null;
    }

    @Override
    public long rowsWritten() {
      return 0;
    }

    @Override
    public long statements() {
      return 0;
    }

    @Override
    public long columnsWritten() {
      return 0;
    }

    @Override
    public void close() {}
  }
}
