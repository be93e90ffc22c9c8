package dev.weir.feed;

import dev.weir.schema.ActivityEvent;
import java.io.Serializable;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * When an event joins an entry, decided on event time alone and with no state: the collator applies
 * it to one key's events in event-time order ({@link #ORDER}).
 *
 * <ul>
 *   <li>An event joins the open entry if it is at most {@code gap} after the entry's last event and
 *       at most {@code max-span} after its first; otherwise it opens a new entry, whose id derives
 *       from the key and that first event ({@link FeedEntry#entryId}): a replay of the same input
 *       makes the same entries, whatever order it arrived in.
 *   <li>A late event (older than what its key already applied) merges into the earliest entry whose
 *       span it fits by the same rule, or else forms an entry of its own.
 *   <li>An event id counts once while it is remembered: until no entry that spans its time is
 *       within {@code dedupe-window} of the watermark.
 *   <li>An entry is archived once the watermark is {@code archive-after} past its last event.
 * </ul>
 */
final class CollationRule implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The order a key's events are applied in: event time, then event id (the same on a replay). */
  static final Comparator<WaitingEvent> ORDER =
      Comparator.comparingLong(WaitingEvent::at).thenComparing(p -> p.event.eventId());

  private final FeedSettings settings;

  CollationRule(FeedSettings settings) {
    this.settings = settings;
  }

  /** Whether an event at {@code at}, applied in order, joins {@code open} (null: none open). */
  boolean joins(FeedEntry open, long at) {
    return open != null
        && at - open.lastAt <= settings.gapMs()
        && at - open.firstAt <= settings.maxSpanMs();
  }

  /**
   * The entry a late event at {@code at} merges into: the earliest one it is within the gap of,
   * whose span with it stays within the max span; null if none, and it forms an entry of its own.
   */
  FeedEntry lateFit(Iterable<FeedEntry> entries, long at) {
    FeedEntry fit = null;
    for (FeedEntry e : entries) {
      boolean near = at >= e.firstAt - settings.gapMs() && at <= e.lastAt + settings.gapMs();
      boolean withinSpan = Math.max(e.lastAt, at) - Math.min(e.firstAt, at) <= settings.maxSpanMs();
      if (near && withinSpan && (fit == null || e.firstAt < fit.firstAt)) {
        fit = e;
      }
    }
    return fit;
  }

  /** Counts the event into the entry and keeps it among the entry's recent details. */
  void count(FeedEntry entry, ActivityEvent event) {
    entry.incrementCount();
    entry.addDetail(FeedEntry.Detail.of(event), settings.recentDetails());
  }

  /**
   * The entries that {@code events}, in {@link #ORDER}, make after {@code open} (null: none open),
   * by id: copies, {@code open} itself unchanged. What the entries will be once these events are
   * applied, shown before the watermark lets them be.
   */
  Map<String, FeedEntry> applyInOrder(CollationKey key, FeedEntry open, List<WaitingEvent> events) {
    Map<String, FeedEntry> made = new LinkedHashMap<>();
    FeedEntry current = open == null ? null : open.copy();
    for (WaitingEvent p : events) {
      long at = p.at();
      if (joins(current, at)) {
        current.setLastAt(Math.max(current.lastAt, at));
      } else {
        current = FeedEntry.open(key, at, p.event.eventId());
      }
      count(current, p.event);
      made.put(current.entryId, current);
    }
    return made;
  }

  /** When the entry is archived: {@code archive-after} past its last event. */
  long archiveAt(FeedEntry entry) {
    return entry.lastAt + settings.archiveAfterMs();
  }

  /**
   * When the entry needs its one timer next, the watermark being at {@code watermark}: the moment
   * its ids are forgotten, if not yet passed, else its archival.
   */
  long nextTimer(FeedEntry entry, long watermark) {
    long forgetAt = entry.lastAt + settings.dedupeWindowMs();
    return forgetAt > watermark && forgetAt < archiveAt(entry) ? forgetAt : archiveAt(entry);
  }

  /** Whether the entry's event ids are still remembered at {@code watermark}. */
  boolean remembersIds(FeedEntry entry, long watermark) {
    return entry.lastAt + settings.dedupeWindowMs() > watermark;
  }

  /**
   * Whether the id of an event at {@code at} is still needed, the key having applied events up to
   * {@code frontier}: while an entry that remembers its ids spans that time (joining or merging
   * widens an entry's span to its event's time), or while it may wait (a waiting event is never
   * older than the latest applied one: releases go in event-time order).
   */
  static boolean idNeeded(long at, long frontier, List<FeedEntry> remembering) {
    if (at >= frontier) {
      return true;
    }
    for (FeedEntry entry : remembering) {
      if (entry.firstAt <= at && at <= entry.lastAt) {
        return true;
      }
    }
    return false;
  }
}
