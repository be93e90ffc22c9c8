package dev.weir.feed;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.KeyContext;

/**
 * Where the collator reads and writes the current key's clock and waiting events. With a {@link
 * ClockCache} they are held on the heap from the key's first call after a checkpoint until the next
 * checkpoint (or until the cache is full), then written into keyed state: the events of a burst
 * come a few records apart and wait seconds for the watermark, and read and write their key's
 * bookkeeping in memory instead of in RocksDB. Without one, every call reads and writes keyed
 * state.
 */
final class ClockStore {

  private final CollatorState state;

  /** Sets the current key while held clocks are written back. */
  private final KeyContext keys;

  /** Null: none held, keyed state read and written in each call. */
  private final ClockCache cache;

  /** What {@link #cache} holds of the current key. */
  private ClockCache.Held held;

  private Clock clock;
  private boolean changed;

  /** Holding up to {@code heldKeys} keys; 0: none. */
  ClockStore(CollatorState state, KeyContext keys, int heldKeys) {
    this.state = state;
    this.keys = keys;
    this.cache = heldKeys > 0 ? new ClockCache(heldKeys) : null;
  }

  /** Reads the key's clock, a new one for a new key; the calls below are about this key. */
  Clock load(CollationKey key) throws Exception {
    changed = false;
    Clock read = read(key);
    clock = read != null ? read : new Clock();
    return clock;
  }

  private Clock read(CollationKey key) throws Exception {
    if (cache == null) {
      return state.clock.value();
    }
    held = cache.get(key);
    if (held == null) {
      if (cache.full()) {
        flush();
      }
      held = cache.read(key, state.clock.value());
    }
    return held.clock;
  }

  /** The current key's clock. */
  Clock clock() {
    return clock;
  }

  /** The clock changed: {@link #save} writes it. */
  void changed() {
    changed = true;
  }

  /** Writes the clock if it changed. */
  void save() throws Exception {
    if (!changed) {
      return;
    }
    if (cache == null) {
      state.clock.update(clock);
    } else {
      held.clock = clock;
      held.clockWritten = true;
    }
  }

  /** The key holds nothing any more: its clock goes too. */
  void clear() throws Exception {
    if (cache == null) {
      state.clock.clear();
    } else {
      held.clock = null;
      held.clockWritten = true;
    }
    changed = false;
  }

  /** The key's waiting events, in arrival order; not to be changed (see {@link #keepWaiting}). */
  List<WaitingEvent> waitingEvents() throws Exception {
    if (cache != null && (held.waitingReplaced || !held.waitingInState)) {
      return held.waiting == null ? List.of() : held.waiting;
    }
    List<WaitingEvent> all = new ArrayList<>();
    Iterable<WaitingEvent> inState = state.waiting.get();
    if (inState != null) {
      inState.forEach(all::add);
    }
    if (cache != null && held.waiting != null) {
      all.addAll(held.waiting);
    }
    return all;
  }

  void addWaiting(WaitingEvent event) throws Exception {
    if (cache == null) {
      state.waiting.add(event);
    } else {
      cache.addWaiting(held, event);
    }
  }

  /** The key's waiting events are now {@code events} (empty: none). */
  void keepWaiting(List<WaitingEvent> events) throws Exception {
    if (cache != null) {
      cache.replaceWaiting(held, events);
    } else if (events.isEmpty()) {
      state.waiting.clear();
    } else {
      state.waiting.update(events);
    }
  }

  /** Writes the held clocks and waiting events into keyed state, and forgets them. */
  void flush() throws Exception {
    if (cache == null || cache.size() == 0) {
      return;
    }
    Object current = keys.getCurrentKey();
    cache.flush(
        (key, h) -> {
          keys.setCurrentKey(key);
          if (h.clockWritten) {
            if (h.clock == null) {
              state.clock.clear();
            } else {
              state.clock.update(h.clock);
            }
          }
          List<WaitingEvent> events = h.waiting == null ? List.of() : h.waiting;
          if (h.waitingReplaced && h.waitingInState) {
            if (events.isEmpty()) {
              state.waiting.clear();
            } else {
              state.waiting.update(events);
            }
          } else if (!events.isEmpty()) {
            state.waiting.addAll(events);
          }
        });
    held = null;
    if (current != null) {
      keys.setCurrentKey(current);
    }
  }
}
