package dev.weir.feed;

import static dev.weir.feed.Clock.NONE;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimerService;

/**
 * Keeps a key's events until the watermark passes them, or, when the watermark stalls (the input
 * paused), until they have waited the out-of-orderness bound; then hands them over in event-time
 * order ({@link CollationRule#ORDER}), so that input out of order within the bound gives the same
 * entries as sorted input. The waiting events of a key share one event-time timer, at the earliest
 * of them, and one processing-time timer, at its patience.
 */
final class EventOrder {

  private final long outOfOrdernessMs;
  private final ClockStore clocks;
  private final InternalTimerService<VoidNamespace> timers;

  EventOrder(FeedSettings settings, ClockStore clocks, InternalTimerService<VoidNamespace> timers) {
    this.outOfOrdernessMs = settings.outOfOrdernessMs();
    this.clocks = clocks;
    this.timers = timers;
  }

  /** The event, at {@code at}, waits: a release timer at its time if it is the earliest. */
  void await(WaitingEvent event, long at) throws Exception {
    Clock clock = clocks.clock();
    markOvertaken(clock, at);
    clocks.addWaiting(event);
    clock.waiting++;
    clock.latestWaitingAt = Math.max(clock.latestWaitingAt, at);
    if (clock.releaseAt == NONE || at < clock.releaseAt) {
      timers.registerEventTimeTimer(VoidNamespace.INSTANCE, at);
      clock.releaseAt = at;
    }
    clocks.changed();
  }

  /**
   * Marks the waiting events later than {@code at} as overtaken. In-order input has none: the
   * waiting events are read only if the latest of them is later.
   */
  private void markOvertaken(Clock clock, long at) throws Exception {
    if (clock.waiting == 0 || clock.latestWaitingAt <= at) {
      return;
    }
    List<WaitingEvent> all = new ArrayList<>();
    long latest = NONE;
    boolean marked = false;
    for (WaitingEvent p : clocks.waitingEvents()) {
      all.add(p);
      latest = Math.max(latest, p.at());
      if (p.at() > at && !p.overtaken) {
        p.overtaken = true;
        marked = true;
      }
    }
    if (marked) {
      clocks.keepWaiting(all);
    }
    clock.waiting = all.size();
    clock.latestWaitingAt = latest;
  }

  /**
   * Sets the patience timer of an event that arrived at {@code now}, unless one is set or the flush
   * is due first: the flush sets it then if events still wait ({@link #rearm}). At replay speed the
   * watermark has released them by then, and no such timer is needed.
   */
  void armPatience(long now) {
    Clock clock = clocks.clock();
    if (clock.patienceAt == NONE) {
      long patience = roundUp(now + outOfOrdernessMs);
      if (clock.flushAt > patience) {
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, patience);
        clock.patienceAt = patience;
      }
    }
  }

  /**
   * The latest event time among the events that have waited the bound by {@code now}: they are
   * released with every older one, so that the order among them is still kept. {@link
   * Long#MIN_VALUE} if none has.
   */
  long patientUpTo(long now) throws Exception {
    long upTo = Long.MIN_VALUE;
    if (clocks.clock().waiting != 0) {
      for (WaitingEvent p : clocks.waitingEvents()) {
        if (p.arrivedAt + outOfOrdernessMs <= now) {
          upTo = Math.max(upTo, p.at());
        }
      }
    }
    return upTo;
  }

  /**
   * What a release hands over, in {@link CollationRule#ORDER}, and the earliest event time and
   * arrival of what still waits ({@link Long#MAX_VALUE}: nothing).
   */
  record Released(List<WaitingEvent> ready, long earliestAt, long earliestArrival) {
    static final Released NONE = new Released(List.of(), Long.MAX_VALUE, Long.MAX_VALUE);

    boolean nothingWaits() {
      return earliestAt == Long.MAX_VALUE;
    }
  }

  /** Releases the waiting events at or before {@code upTo}; the others keep waiting. */
  Released release(long upTo) throws Exception {
    Clock clock = clocks.clock();
    if (clock.waiting == 0) {
      return Released.NONE;
    }
    List<WaitingEvent> ready = new ArrayList<>();
    List<WaitingEvent> left = new ArrayList<>();
    long earliestAt = Long.MAX_VALUE;
    long earliestArrival = Long.MAX_VALUE;
    long latestLeft = NONE;
    for (WaitingEvent p : clocks.waitingEvents()) {
      if (p.at() <= upTo) {
        ready.add(p);
      } else {
        left.add(p);
        latestLeft = Math.max(latestLeft, p.at());
        earliestAt = Math.min(earliestAt, p.at());
        earliestArrival = Math.min(earliestArrival, p.arrivedAt);
      }
    }
    clock.waiting = left.size();
    clock.latestWaitingAt = latestLeft;
    clocks.changed();
    if (!ready.isEmpty()) {
      clocks.keepWaiting(left);
      ready.sort(CollationRule.ORDER);
    }
    return new Released(ready, earliestAt, earliestArrival);
  }

  /**
   * Keeps one timer of each kind due no later than the earliest event still waiting needs it; a
   * timer that already fired (or none) is set again, a later one left to fire and find nothing.
   */
  void rearm(Released released) {
    Clock clock = clocks.clock();
    if (released.nothingWaits()) {
      if (clock.releaseAt != NONE || clock.patienceAt != NONE) {
        clock.releaseAt = NONE;
        clock.patienceAt = NONE;
        clocks.changed();
      }
      return;
    }
    long release = clock.releaseAt;
    if (release == NONE
        || release <= timers.currentWatermark()
        || release > released.earliestAt()) {
      timers.registerEventTimeTimer(VoidNamespace.INSTANCE, released.earliestAt());
      clock.releaseAt = released.earliestAt();
      clocks.changed();
    }
    long patience = roundUp(released.earliestArrival() + outOfOrdernessMs);
    long patient = clock.patienceAt;
    if (patient == NONE || patient <= timers.currentProcessingTime() || patient > patience) {
      timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, patience);
      clock.patienceAt = patience;
      clocks.changed();
    }
  }

  /** On a 100 ms grid: a key's patience timers set a few milliseconds apart are one timer. */
  private static long roundUp(long ms) {
    return (ms / 100 + 1) * 100;
  }
}
