package dev.weir.feed;

import dev.weir.feed.Clock.SeenId;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;

/**
 * The event ids a key remembers, so that a duplicate counts once: its first {@link
 * Clock#IDS_IN_CLOCK} in its clock, read with it, with no state call of their own; from the next
 * one on, all of them in {@code seen}. Each is written once, with its event's time, and forgotten
 * by {@link CollationRule#idNeeded}.
 */
final class EventIds {

  private final MapState<String, Long> seen;
  private final ClockStore clocks;

  EventIds(MapState<String, Long> seen, ClockStore clocks) {
    this.seen = seen;
    this.clocks = clocks;
  }

  boolean seenBefore(String eventId) throws Exception {
    List<SeenId> ids = clocks.clock().seenIds;
    if (ids == null) {
      return seen.contains(eventId);
    }
    for (SeenId id : ids) {
      if (id.eventId.equals(eventId)) {
        return true;
      }
    }
    return false;
  }

  /** Remembers the event's id: in the clock while it has room, else (for good) in seen. */
  void remember(String eventId, long at) throws Exception {
    Clock clock = clocks.clock();
    if (clock.seenIds == null) {
      seen.put(eventId, at);
      return;
    }
    clocks.changed();
    if (clock.seenIds.size() < Clock.IDS_IN_CLOCK) {
      clock.seenIds.add(new SeenId(eventId, at));
      return;
    }
    for (SeenId id : clock.seenIds) {
      seen.put(id.eventId, id.at);
    }
    seen.put(eventId, at);
    clock.seenIds = null;
  }

  /** Forgets the ids no longer needed, {@code remembering} being the entries that keep theirs. */
  void forget(List<FeedEntry> remembering) throws Exception {
    Clock clock = clocks.clock();
    if (clock.seenIds != null) {
      if (clock.seenIds.removeIf(
          id -> !CollationRule.idNeeded(id.at, clock.frontier, remembering))) {
        clocks.changed();
      }
      return;
    }
    Iterator<Map.Entry<String, Long>> ids = seen.iterator();
    while (ids.hasNext()) {
      if (!CollationRule.idNeeded(ids.next().getValue(), clock.frontier, remembering)) {
        ids.remove();
      }
    }
  }

  /** The key holds nothing any more: its ids go too. */
  void clear() throws Exception {
    if (clocks.clock().seenIds == null) {
      seen.clear(); // else it holds nothing: a seek saved
    }
  }
}
