package dev.weir.feed;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys {@link ClockStore} holds between checkpoints: their clocks, read from state once and
 * written back once, and the events they added to their waiting list. At most {@code capacity} keys
 * and {@code capacity} waiting events; then the store writes them all back. What is lost on a crash
 * is what the replay from the checkpoint makes again.
 */
final class ClockCache {

  /** One key's part. */
  static final class Held {
    /** The clock as last read or written: null when the key has none (or it was cleared). */
    Clock clock;

    boolean clockWritten;

    /** Whether the waiting list in state may hold events (then read it along with these). */
    final boolean waitingInState;

    /** Events added to the waiting list since the key was read, or the whole list if replaced. */
    List<WaitingEvent> waiting;

    /** Whether {@link #waiting} replaces the list in state, rather than adds to it. */
    boolean waitingReplaced;

    Held(Clock clock, boolean clockWritten, boolean waitingInState) {
      this.clock = clock;
      this.clockWritten = clockWritten;
      this.waitingInState = waitingInState;
    }
  }

  /** Where flushed keys go. */
  interface Store {
    /** Writes the key's part into keyed state. */
    void write(CollationKey key, Held held) throws Exception;
  }

  private final int capacity;
  private final Map<CollationKey, Held> held = new HashMap<>();
  private int events;

  ClockCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("a clock cache holds at least 1 key, not " + capacity);
    }
    this.capacity = capacity;
  }

  /** The key's part, or null if it is not held (then read its clock from state). */
  Held get(CollationKey key) {
    return held.get(key);
  }

  boolean full() {
    return held.size() >= capacity || events >= capacity;
  }

  /** Holds a clock read from state (null: the key has none). */
  Held read(CollationKey key, Clock clock) {
    Held h = new Held(clock, false, clock != null && clock.waiting != 0);
    held.put(key, h);
    return h;
  }

  /** An event added to the key's waiting list. */
  void addWaiting(Held h, WaitingEvent pending) {
    if (h.waiting == null) {
      h.waiting = new ArrayList<>();
    }
    h.waiting.add(pending);
    events++;
  }

  /**
   * The key's waiting list is now {@code waiting} (what a release left): the events it no longer
   * holds are no longer counted.
   */
  void replaceWaiting(Held h, List<WaitingEvent> waiting) {
    events += waiting.size() - (h.waiting == null ? 0 : h.waiting.size());
    h.waiting = waiting;
    h.waitingReplaced = true;
  }

  /** Waiting events held. */
  int events() {
    return events;
  }

  /** Hands each key's part to {@code store}, and forgets them all. */
  void flush(Store store) throws Exception {
    for (Map.Entry<CollationKey, Held> e : held.entrySet()) {
      Held h = e.getValue();
      if (h.clockWritten || h.waitingReplaced || (h.waiting != null && !h.waiting.isEmpty())) {
        store.write(e.getKey(), h);
      }
    }
    held.clear();
    events = 0;
  }

  int size() {
    return held.size();
  }
}
