package dev.weir.feed;

import java.util.ArrayList;
import java.util.List;

/**
 * A key's bookkeeping in one value, read once per call (and held between checkpoints, see {@link
 * ClockStore}): its summaries let an in-order event and a release timer read neither the waiting
 * events nor the entries. A new key's clock is this class's defaults.
 */
public class Clock {

  /** Absent, for the times below. */
  static final long NONE = Long.MIN_VALUE;

  /** How many event ids a clock keeps before they all move to {@code seen}. */
  static final int IDS_IN_CLOCK = 16;

  /** The entry that the next in-order event may join, if any. */
  public String openEntryId;

  /** The latest event time applied for this key ({@link #NONE}: none yet). */
  public long frontier = NONE;

  /** The processing time at which dirty entries are emitted next, if scheduled. */
  public long flushAt = NONE;

  /**
   * The event-time and processing-time timers set for the waiting events, if any: one of each per
   * key, at the earliest waiting event's time and patience, not one per event. The processing-time
   * one only once a flush finds events still waiting ({@link EventOrder}).
   */
  public long releaseAt = NONE;

  public long patienceAt = NONE;

  /** How many events wait in {@code waiting-events}. */
  public int waiting;

  /** The latest event time among them (meaningful when {@code waiting > 0}). */
  public long latestWaitingAt = NONE;

  /**
   * The earliest {@link FeedEntry#archiveTimerAt} of the entries in state ({@link Long#MAX_VALUE}:
   * no entry).
   */
  public long entryTimerAt = Long.MAX_VALUE;

  /** Whether {@code shown} may hold an entry (else it is not read). */
  public boolean shown;

  /**
   * The ids of this key's remembered events with their times, while there are at most {@link
   * #IDS_IN_CLOCK}: the duplicate check reads them with the clock, with no state call of its own.
   * Null: the ids are in {@code seen} (a key that remembered more).
   */
  public List<SeenId> seenIds = new ArrayList<>();

  /**
   * The entries to emit at the next flush, with what changed in each since the last: kept here,
   * where a flush reads them with the clock, so that it reads only those entries and writes none
   * back just to clear a flag.
   */
  public List<Dirty> dirty = new ArrayList<>();

  public Clock() {}

  /** An event id remembered for deduplication, with the event's time. */
  public static class SeenId {
    public String eventId;
    public long at;

    public SeenId() {}

    SeenId(String eventId, long at) {
      this.eventId = eventId;
      this.at = at;
    }
  }

  /** An entry to emit at the next flush. */
  public static class Dirty {
    public String entryId;

    /** The columns changed since the last emission ({@link FeedEntry}'s bits). */
    public int changed;

    /** Whether the entry has not been emitted yet: its row is created. */
    public boolean created;

    public Dirty() {}

    Dirty(String entryId, int changed, boolean created) {
      this.entryId = entryId;
      this.changed = changed;
      this.created = created;
    }
  }
}
