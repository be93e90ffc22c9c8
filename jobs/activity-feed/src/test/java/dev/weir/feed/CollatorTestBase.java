package dev.weir.feed;

import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.schema.ActivityEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The {@link Collator} in a test harness (flink-training's style), one key's events sent at offsets
 * from {@link #T0}, and what its tests read back: the writes, and the key's state.
 */
abstract class CollatorTestBase {

  static final Instant T0 = Instant.parse("2021-07-21T06:00:00Z");
  static final long MIN = 60_000;

  /**
   * gap 10 min, max span 1 h, out-of-orderness 5 s, staleness 2 s (emit every 1 s), archive after
   * 30 d, 3 details, ids remembered for 1 d, 10,000 keys held.
   */
  static final FeedSettings SETTINGS =
      new FeedSettings(
          10 * MIN,
          60 * MIN,
          5_000,
          2_000,
          Duration.ofDays(30).toMillis(),
          3,
          Duration.ofDays(1).toMillis(),
          10_000);

  Collator collator;
  KeyedOneInputStreamOperatorTestHarness<CollationKey, ActivityEvent, FeedWrite> harness;

  @BeforeEach
  void open() throws Exception {
    open(TypeInformation.of(CollationKey.class), Backend.HEAP, null);
  }

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  /** A new collator in place of this one, restored from {@code state} (at processing time 1 s). */
  void reopen(OperatorSubtaskState state) throws Exception {
    reopen(TypeInformation.of(CollationKey.class), Backend.HEAP, state);
  }

  /** A new collator in place of this one, keyed by {@code keyType}, in {@code backend}. */
  void reopen(TypeInformation<CollationKey> keyType, Backend backend, OperatorSubtaskState state)
      throws Exception {
    harness.close();
    open(keyType, backend, state);
  }

  /** Restored from {@code state} if given; RocksDB with its timers in it, as the job deploys it. */
  private void open(
      TypeInformation<CollationKey> keyType, Backend backend, OperatorSubtaskState state)
      throws Exception {
    collator = new Collator(SETTINGS);
    harness = new KeyedOneInputStreamOperatorTestHarness<>(collator, CollationKey::of, keyType);
    if (backend == Backend.ROCKSDB) {
      harness.setStateBackend(new EmbeddedRocksDBStateBackend());
    }
    if (state != null) {
      harness.setProcessingTime(1_000);
      harness.initializeState(state);
    }
    harness.open();
    if (state == null) {
      harness.setProcessingTime(0);
    }
  }

  void send(String id, long offsetMs, String action) throws Exception {
    Instant at = T0.plusMillis(offsetMs);
    harness.processElement(
        new ActivityEvent(
            id, "acme", "ana", "repository", "acme/weir", action, at, Map.of("n", id)),
        at.toEpochMilli());
  }

  void watermark(long offsetMs) throws Exception {
    harness.processWatermark(T0.toEpochMilli() + offsetMs);
  }

  void flushAt(long processingTime) throws Exception {
    harness.setProcessingTime(processingTime);
  }

  static CollationKey key(String action) {
    return new CollationKey("acme", "ana", "repository", "acme/weir", action);
  }

  /** The last written state of every entry (what the store would hold). */
  Map<String, FeedEntry> latestEntries() {
    Map<String, FeedEntry> entries = new LinkedHashMap<>();
    for (FeedWrite w : harness.extractOutputValues()) {
      if (w.kind == FeedWrite.Kind.UPSERT) {
        entries.put(w.entry.entryId, w.entry);
      } else {
        entries.remove(w.entry.entryId);
      }
    }
    return entries;
  }

  /** The runs of {@code events} (id, offset), each followed by a watermark {@code bound} behind. */
  Map<String, FeedEntry> runWatermarked(List<long[]> events, long bound) throws Exception {
    long maxSeen = Long.MIN_VALUE;
    for (long[] e : events) {
      send("e" + e[0], e[1], "push");
      maxSeen = Math.max(maxSeen, e[1]);
      harness.processWatermark(T0.toEpochMilli() + maxSeen - bound - 1);
    }
    watermark(maxSeen + 1);
    flushAt(1_000);
    return latestEntries();
  }

  /** The key's clock, as a checkpoint would write it. */
  Clock clock(CollationKey key) throws Exception {
    return onKey(key, () -> clockState().value());
  }

  /** Sets the key's clock in keyed state (null: clears it). */
  void setClock(CollationKey key, Clock clock) throws Exception {
    onKey(
        key,
        () -> {
          if (clock == null) {
            clockState().clear();
          } else {
            clockState().update(clock);
          }
          return null;
        });
  }

  private ValueState<Clock> clockState() throws Exception {
    return keyedState()
        .getPartitionedState(
            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, CollatorState.CLOCK);
  }

  /** The key's ids in seen. */
  MapState<String, Long> seen() throws Exception {
    return keyedState()
        .getPartitionedState(
            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, CollatorState.SEEN);
  }

  KeyedStateBackend<CollationKey> keyedState() {
    return collator.getKeyedStateBackend();
  }

  /** Keyed state as a checkpoint takes it: the clocks the collator holds written back first. */
  <T> T onKey(CollationKey key, Callable<T> action) throws Exception {
    collator.flushClocks();
    KeyedStateBackend<CollationKey> backend = keyedState();
    CollationKey current = backend.getCurrentKey();
    backend.setCurrentKey(key);
    try {
      return action.call();
    } finally {
      if (current != null) {
        backend.setCurrentKey(current);
      }
    }
  }

  /** How many event ids the key's state holds for deduplication: in its clock and in seen. */
  int rememberedIds(CollationKey key) throws Exception {
    Clock clock = clock(key);
    int inClock = clock == null || clock.seenIds == null ? 0 : clock.seenIds.size();
    return inClock + idsInSeen(key);
  }

  int idsInSeen(CollationKey key) throws Exception {
    KeyedStateBackend<CollationKey> backend = keyedState();
    CollationKey current = backend.getCurrentKey();
    backend.setCurrentKey(key);
    int n = 0;
    for (String ignored : seen().keys()) {
      n++;
    }
    if (current != null) {
      backend.setCurrentKey(current);
    }
    return n;
  }
}
