package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

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

  private static void send(
      KeyedTwoInputStreamOperatorTestHarness<
              IdentityKey, TrackingEvent, MappingChange, dev.weir.schema.EnrichedTrackingEvent>
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
          IdentityKey, TrackingEvent, MappingChange, dev.weir.schema.EnrichedTrackingEvent>
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
    public void write(Collection<IdentityRecord> records) {}

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
