package dev.weir.feed;

import dev.weir.common.types.JsonMapSerializer;
import dev.weir.common.types.KryoFree;
import java.util.List;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The collator's keyed state, all of it: the names, types and serializers a savepoint restores by.
 * No state has a time to live: entries leave by their own timers, ids with their entries, so that
 * state is bounded by event time (docs/state.md). Keyed by {@link CollationKey} ({@link
 * CollationKeySerializer}). A savepoint of each release must restore into this layout ({@code
 * CollatorStateSavepointTest}).
 */
final class CollatorState {

  /** Its event's details in {@link JsonMapSerializer}'s form, not Kryo's. */
  static final TypeInformation<WaitingEvent> WAITING_EVENT = KryoFree.pojoOf(WaitingEvent.class);

  /** Its recent details as a list of POJOs, not Kryo's. */
  static final TypeInformation<FeedEntry> ENTRY = KryoFree.pojoOf(FeedEntry.class);

  /**
   * Events waiting for the watermark, in arrival order. A list: a key's arrivals since a checkpoint
   * are one append (a RocksDB merge, nothing read), a release at most one read and one write.
   */
  static final ListStateDescriptor<WaitingEvent> WAITING =
      new ListStateDescriptor<>("waiting-events", WAITING_EVENT);

  /** Entries still in the hot store, by entry id. */
  static final MapStateDescriptor<String, FeedEntry> ENTRIES =
      new MapStateDescriptor<>("entries", Types.STRING, ENTRY);

  /**
   * Event ids remembered for deduplication with their event's time, of a key whose clock no longer
   * holds them ({@link Clock#seenIds} null).
   */
  static final MapStateDescriptor<String, Long> SEEN =
      new MapStateDescriptor<>("seen", Types.STRING, Types.LONG);

  /**
   * The version last emitted of entries whose emission included waiting events (provisional), until
   * the ordered result confirms or corrects it.
   */
  static final MapStateDescriptor<String, FeedEntry> SHOWN =
      new MapStateDescriptor<>("shown", Types.STRING, ENTRY);

  /** The key's bookkeeping, one value, written field by field ({@link ClockSerializer}). */
  static final ValueStateDescriptor<Clock> CLOCK =
      new ValueStateDescriptor<>("clock", ClockSerializer.TYPE);

  /**
   * The timers' name (the one Flink's process operators use): per entry one event-time timer; per
   * key with waiting events one of each kind; per key one processing-time timer for its flush.
   */
  static final String TIMERS = "user-timers";

  /** Every keyed state above: what a savepoint of the collator holds, besides the timers. */
  static final List<StateDescriptor<?, ?>> DESCRIPTORS =
      List.of(WAITING, ENTRIES, SEEN, SHOWN, CLOCK);

  final ListState<WaitingEvent> waiting;
  final MapState<String, FeedEntry> entries;
  final MapState<String, Long> seen;
  final MapState<String, FeedEntry> shown;
  final ValueState<Clock> clock;

  CollatorState(KeyedStateStore store) {
    waiting = store.getListState(WAITING);
    entries = store.getMapState(ENTRIES);
    seen = store.getMapState(SEEN);
    shown = store.getMapState(SHOWN);
    clock = store.getState(CLOCK);
  }
}
