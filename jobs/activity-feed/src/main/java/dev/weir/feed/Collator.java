package dev.weir.feed;

import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.types.JsonMapSerializer;
import dev.weir.common.types.KryoFree;
import dev.weir.schema.ActivityEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.util.Collector;

/**
 * Collates one key's events into feed entries, on event time.
 *
 * <ul>
 *   <li><b>Order.</b> Events wait in state until the watermark passes them (or, if the watermark
 *       stalls, until they have waited the out-of-orderness bound), then are applied in event-time
 *       order: input out of order within the bound gives the same entries as sorted input.
 *   <li><b>Freshness.</b> Waiting for the watermark (5 s by default) would make the feed staler
 *       than its bound (2 s), so each emission also shows the waiting events, applied in order to
 *       copies of the entries: a provisional view. Once the watermark passes them, the ordered
 *       result almost always equals what was shown, and nothing more is written. It differs only
 *       when an earlier event arrives after a later one across an entry boundary (the later one was
 *       shown as opening an entry that the ordered input merges away): then that provisional row is
 *       retracted (a DELETE) and the surviving entry updated. The last emitted version of such
 *       entries is kept in state until the ordered result confirms it, so the diff names only
 *       changed columns. If the job crashes after showing a provisional entry and before a
 *       checkpoint, the retraction is not in state: so an event that was overtaken by an earlier
 *       one and then joins an entry it did not open always retracts the entry it may have opened
 *       (an idempotent DELETE that usually finds no row).
 *   <li><b>Rule.</b> An event joins the open entry if it is at most {@code gap} after the entry's
 *       last event and at most {@code max-span} after its first; otherwise it opens a new entry,
 *       whose id derives from the key and that first event.
 *   <li><b>Late events</b> (older than what this key already applied) are merged into the entry
 *       whose span they fit under the same rule, or else form an entry of their own; the open entry
 *       stays open. They are counted.
 *   <li><b>Duplicates</b> (an event id already seen) count once, if they come within {@code
 *       dedupe-window} of the last event of the entry that took the first copy: ids are forgotten
 *       after that, which bounds the state of a key that never pauses (a bot) to the ids of one
 *       window, instead of every id of {@code archive-after}.
 *   <li><b>Writes</b> are coalesced: a changed entry is emitted at most once per half of {@code
 *       max-staleness} (the store gets a quarter; see {@link FeedSettings}), naming the columns
 *       that changed.
 *   <li><b>Archival</b>: an event-time timer fires when the watermark passes {@code last_at +
 *       archive-after}; the entry is emitted for the move to the archive and leaves the state, with
 *       its event ids. State therefore holds only entries younger than archive-after, and ids of
 *       events younger than dedupe-window. Each entry has one event-time timer at a time: the
 *       moment its ids are forgotten, then its archival.
 *   <li><b>End of a bounded input</b> (the final watermark): everything waiting is applied and
 *       written; nothing is archived, since no time has passed.
 * </ul>
 */
public class Collator extends KeyedProcessFunction<CollationKey, ActivityEvent, FeedWrite>
    implements CheckpointedFunction {

  private static final long serialVersionUID = 1L;

  private final FeedSettings settings;

  /**
   * Events waiting for their turn: arrival time and event, in arrival order. A list: a key's
   * arrivals since a checkpoint are one append (a RocksDB merge, nothing read) and a release at
   * most one read and one write, where a map took a put per event, an iteration and a delete per
   * event (issue 27). Between checkpoints they are held with the clock ({@link ClockCache}).
   */
  private transient ListState<Pending> waiting;

  /** Entries still in the hot store, by entry id. */
  private transient MapState<String, FeedEntry> entries;

  /**
   * Event ids of entries in state, with their event time, of a key whose clock does not keep them
   * ({@link Clock#seenIds} null).
   */
  private transient MapState<String, Long> seen;

  /**
   * The version last emitted of entries whose emission included waiting events (provisional), until
   * the ordered result confirms or corrects it.
   */
  private transient MapState<String, FeedEntry> shown;

  /** The key's bookkeeping, one value (see {@link Clock}). */
  private transient ValueState<Clock> clockState;

  /** The current key's clock, read at the start of each call and written at its end if changed. */
  private transient Clock clock;

  private transient boolean clockChanged;

  /** What {@link #clocks} holds of the current key. */
  private transient ClockCache.Held held;

  /**
   * Clocks held between checkpoints ({@link CollatorOperator}); null: read and written each call.
   */
  private transient ClockCache clocks;

  /** Sets the current key while the held clocks are written back. */
  private transient KeyContext keys;

  private transient Counter eventsIn;
  private transient Counter duplicates;
  private transient Counter lateEvents;
  private transient Counter entriesOpened;
  private transient Counter writesEmitted;
  private transient Counter archived;
  private transient Counter retracted;

  public Collator(FeedSettings settings) {
    this.settings = settings;
  }

  /**
   * Event ids remembered for deduplication, each with its event's time, written once on arrival.
   */
  static final MapStateDescriptor<String, Long> SEEN =
      new MapStateDescriptor<>("seen", Types.STRING, Types.LONG);

  /** Its event's details in {@link JsonMapSerializer}'s form, not Kryo's. */
  static final TypeInformation<Pending> PENDING = KryoFree.pojoOf(Pending.class);

  static final ListStateDescriptor<Pending> WAITING =
      new ListStateDescriptor<>("waiting-events", PENDING);

  /** Its recent details as a list of POJOs, not Kryo's. */
  static final TypeInformation<FeedEntry> ENTRY = KryoFree.pojoOf(FeedEntry.class);

  /** Written field by field ({@link ClockSerializer}). */
  static final TypeInformation<Clock> CLOCK = ClockSerializer.TYPE;

  /** Absent, for the times of {@link Clock}. */
  static final long NONE = Long.MIN_VALUE;

  /**
   * A key's bookkeeping in one value, read and written once per call: it was five values read one
   * by one, and iterations of the waiting events and of the entries to find what the summaries here
   * say (issue 27: RocksDB reads and seeks were most of the collate thread's time).
   */
  public static class Clock {
    /** The entry that the next in-order event may join, if any. */
    public String openEntryId;

    /** The latest event time applied for this key ({@link #NONE}: none yet). */
    public long frontier = NONE;

    /** The processing time at which dirty entries are emitted next, if scheduled. */
    public long flushAt = NONE;

    /**
     * The event-time and processing-time timers set for the waiting events, if any: one of each per
     * key, at the earliest waiting event's time and patience, not one per event. The
     * processing-time one only once a flush finds events still waiting (see processElement).
     */
    public long releaseAt = NONE;

    public long patienceAt = NONE;

    /** How many events wait in {@code waiting}. */
    public int waiting;

    /** The latest event time among them (meaningful when {@code waiting > 0}). */
    public long latestWaitingAt = NONE;

    /**
     * The earliest {@link FeedEntry#archiveTimerAt} of the entries in state ({@link
     * Long#MAX_VALUE}: no entry).
     */
    public long entryTimerAt = Long.MAX_VALUE;

    /** Whether {@code shown} may hold an entry. */
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
  }

  /** How many event ids a clock keeps before they move to {@code seen}. */
  static final int IDS_IN_CLOCK = 16;

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

  /** An event waiting to be applied. */
  public static class Pending {
    public ActivityEvent event;
    public long arrivedAt;

    /** Whether an event older than this one arrived after it (it may have been shown early). */
    public boolean overtaken;

    public Pending() {}

    Pending(ActivityEvent event, long arrivedAt) {
      this.event = event;
      this.arrivedAt = arrivedAt;
    }

    long at() {
      return event.occurredAt().toEpochMilli();
    }
  }

  @Override
  public void initializeState(FunctionInitializationContext context) {}

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    // Before the keyed state is taken (Flink snapshots a function's state first).
    flushClocks();
  }

  FeedSettings settings() {
    return settings;
  }

  /**
   * Holds up to {@code capacity} keys' clocks between checkpoints, set by {@link CollatorOperator}.
   */
  void holdClocks(KeyContext keys, int capacity) {
    this.keys = keys;
    this.clocks = new ClockCache(capacity);
  }

  /** Writes the held clocks into keyed state, and forgets them. */
  void flushClocks() throws Exception {
    if (clocks == null || clocks.size() == 0) {
      return;
    }
    Object current = keys.getCurrentKey();
    clocks.flush(
        (key, h) -> {
          keys.setCurrentKey(key);
          if (h.clockWritten) {
            if (h.clock == null) {
              clockState.clear();
            } else {
              clockState.update(h.clock);
            }
          }
          List<Pending> events = h.waiting == null ? List.of() : h.waiting;
          if (h.waitingReplaced && h.waitingInState) {
            if (events.isEmpty()) {
              waiting.clear();
            } else {
              waiting.update(events);
            }
          } else if (!events.isEmpty()) {
            waiting.addAll(events);
          }
        });
    held = null;
    if (current != null) {
      keys.setCurrentKey(current);
    }
  }

  @Override
  public void open(OpenContext openContext) {
    waiting = getRuntimeContext().getListState(WAITING);
    entries =
        getRuntimeContext().getMapState(new MapStateDescriptor<>("entries", Types.STRING, ENTRY));
    seen = getRuntimeContext().getMapState(SEEN);
    shown = getRuntimeContext().getMapState(new MapStateDescriptor<>("shown", Types.STRING, ENTRY));
    clockState = getRuntimeContext().getState(new ValueStateDescriptor<>("clock", CLOCK));
    var metrics = getRuntimeContext().getMetricGroup();
    eventsIn = metrics.counter(WeirMetrics.EVENTS_IN);
    duplicates = metrics.counter("weirDuplicateEvents");
    lateEvents = metrics.counter(WeirMetrics.LATE_EVENTS);
    entriesOpened = metrics.counter("weirEntriesOpened");
    writesEmitted = metrics.counter("weirEntryWritesEmitted");
    archived = metrics.counter("weirEntriesArchived");
    retracted = metrics.counter("weirProvisionalEntriesRetracted");
  }

  @Override
  public void processElement(ActivityEvent event, Context ctx, Collector<FeedWrite> out)
      throws Exception {
    eventsIn.inc();
    loadClock(ctx.getCurrentKey());
    if (seenBefore(event.eventId())) {
      duplicates.inc();
      return;
    }
    long at = event.occurredAt().toEpochMilli();
    remember(event.eventId(), at);
    if (clock.frontier != NONE && at < clock.frontier) {
      lateEvents.inc();
      applyLate(event, ctx);
      saveClock();
      return;
    }
    markOvertaken(at);
    long now = ctx.timerService().currentProcessingTime();
    addWaiting(new Pending(event, now));
    clock.waiting++;
    clock.latestWaitingAt = Math.max(clock.latestWaitingAt, at);
    if (clock.releaseAt == NONE || at < clock.releaseAt) {
      ctx.timerService().registerEventTimeTimer(at);
      clock.releaseAt = at;
    }
    scheduleFlush(ctx);
    if (clock.patienceAt == NONE) {
      long patience = roundUp(now + settings.outOfOrdernessMs());
      if (clock.flushAt > patience) {
        ctx.timerService().registerProcessingTimeTimer(patience);
        clock.patienceAt = patience;
      }
    }
    // Else the flush, due first, sets the patience timer if events still wait then (rearm): at
    // replay speed the watermark has released them by that time, and no such timer is needed.
    clockChanged = true;
    saveClock();
  }

  private boolean seenBefore(String eventId) throws Exception {
    if (clock.seenIds == null) {
      return seen.contains(eventId);
    }
    for (SeenId id : clock.seenIds) {
      if (id.eventId.equals(eventId)) {
        return true;
      }
    }
    return false;
  }

  /** Remembers the event's id: in the clock while it has room, else (for good) in seen. */
  private void remember(String eventId, long at) throws Exception {
    if (clock.seenIds == null) {
      seen.put(eventId, at);
      return;
    }
    clockChanged = true;
    if (clock.seenIds.size() < IDS_IN_CLOCK) {
      clock.seenIds.add(new SeenId(eventId, at));
      return;
    }
    for (SeenId id : clock.seenIds) {
      seen.put(id.eventId, id.at);
    }
    seen.put(eventId, at);
    clock.seenIds = null;
  }

  /**
   * Marks the waiting events later than {@code at} as overtaken. In order input has none: the
   * waiting events are read only if the latest of them is later (or not known).
   */
  private void markOvertaken(long at) throws Exception {
    if (clock.waiting == 0 || clock.latestWaitingAt <= at) {
      return;
    }
    List<Pending> all = new ArrayList<>();
    long latest = NONE;
    boolean marked = false;
    for (Pending p : waitingEvents()) {
      all.add(p);
      latest = Math.max(latest, p.at());
      if (p.at() > at && !p.overtaken) {
        p.overtaken = true;
        marked = true;
      }
    }
    if (marked) {
      keepWaiting(all);
    }
    clock.waiting = all.size();
    clock.latestWaitingAt = latest;
  }

  /** Reads the current key's clock; a key with none is a new key. */
  private void loadClock(CollationKey key) throws Exception {
    clock = readClock(key);
    clockChanged = false;
    if (clock == null) {
      clock = new Clock();
    }
  }

  private Clock readClock(CollationKey key) throws Exception {
    if (clocks == null) {
      return clockState.value();
    }
    held = clocks.get(key);
    if (held == null) {
      if (clocks.full()) {
        flushClocks();
      }
      held = clocks.read(key, clockState.value());
    }
    return held.clock;
  }

  /** The key's waiting events, in arrival order; not to be changed (see {@link #keepWaiting}). */
  private List<Pending> waitingEvents() throws Exception {
    if (clocks != null && (held.waitingReplaced || !held.waitingInState)) {
      return held.waiting == null ? List.of() : held.waiting;
    }
    List<Pending> all = new ArrayList<>();
    Iterable<Pending> inState = waiting.get();
    if (inState != null) {
      inState.forEach(all::add);
    }
    if (clocks != null && held.waiting != null) {
      all.addAll(held.waiting);
    }
    return all;
  }

  private void addWaiting(Pending event) throws Exception {
    if (clocks == null) {
      waiting.add(event);
    } else {
      clocks.addWaiting(held, event);
    }
  }

  /** The key's waiting events are now {@code events} (empty: none). */
  private void keepWaiting(List<Pending> events) throws Exception {
    if (clocks != null) {
      clocks.replaceWaiting(held, events);
    } else if (events.isEmpty()) {
      waiting.clear();
    } else {
      waiting.update(events);
    }
  }

  private void saveClock() throws Exception {
    if (!clockChanged) {
      return;
    }
    if (clocks == null) {
      clockState.update(clock);
    } else {
      held.clock = clock;
      held.clockWritten = true;
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<FeedWrite> out)
      throws Exception {
    loadClock(ctx.getCurrentKey());
    onTimer(ctx, out);
    clearIfEmpty();
    saveClock();
  }

  private void onTimer(OnTimerContext ctx, Collector<FeedWrite> out) throws Exception {
    if (ctx.timeDomain() == TimeDomain.EVENT_TIME) {
      rearm(ctx, release(ctx, out, p -> p.at() <= ctx.timerService().currentWatermark()));
      if (ctx.timerService().currentWatermark() == Long.MAX_VALUE) {
        // The end of a bounded input: no more events will come, which makes nothing older.
        // Write what is pending now (processing-time timers do not fire after the end); archive
        // nothing.
        setFlushAt(NONE);
        flush(ctx.getCurrentKey(), out);
        return;
      }
      archiveDue(ctx, out);
    } else {
      long now = ctx.timerService().currentProcessingTime();
      // The watermark stalled (e.g. the input paused): apply what has waited the bound, and
      // everything older than it, so the order among them is still kept.
      long patientUpTo = Long.MIN_VALUE;
      if (clock.waiting != 0) {
        for (Pending p : waitingEvents()) {
          if (p.arrivedAt + settings.outOfOrdernessMs() <= now) {
            patientUpTo = Math.max(patientUpTo, p.at());
          }
        }
      }
      long limit = patientUpTo;
      rearm(ctx, release(ctx, out, p -> p.at() <= limit));
      long watermark = ctx.timerService().currentWatermark();
      if (limit != Long.MIN_VALUE && watermark < Long.MAX_VALUE) {
        // An event released here may be older than the watermark by more than archive-after
        // (replayed history): its archive timer is already past and would wait for the watermark
        // to move again, which a paused input never does. Archive it now.
        archiveDue(ctx, out);
      }
      if (clock.flushAt != NONE && clock.flushAt <= now) {
        setFlushAt(NONE);
        flush(ctx.getCurrentKey(), out);
      }
    }
  }

  private interface Releasable {
    boolean test(Pending p);
  }

  /** What still waits after a release: its earliest event time and arrival, if any. */
  private record Waiting(long earliestAt, long earliestArrival) {
    static final Waiting NONE = new Waiting(Long.MAX_VALUE, Long.MAX_VALUE);

    boolean none() {
      return earliestAt == Long.MAX_VALUE;
    }
  }

  private Waiting release(Context ctx, Collector<FeedWrite> out, Releasable releasable)
      throws Exception {
    if (clock.waiting == 0) {
      return Waiting.NONE;
    }
    List<Pending> ready = new ArrayList<>();
    List<Pending> left = new ArrayList<>();
    long earliestAt = Long.MAX_VALUE;
    long earliestArrival = Long.MAX_VALUE;
    long latestLeft = NONE;
    for (Pending p : waitingEvents()) {
      if (releasable.test(p)) {
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
    clockChanged = true;
    Waiting stillWaiting = new Waiting(earliestAt, earliestArrival);
    if (ready.isEmpty()) {
      return stillWaiting;
    }
    keepWaiting(left);
    ready.sort(Comparator.comparingLong(Pending::at).thenComparing(p -> p.event.eventId()));
    Map<String, FeedEntry> changed = new LinkedHashMap<>();
    for (Pending p : ready) {
      apply(p, ctx, out, changed);
    }
    // Each changed entry written once, not once per event applied to it.
    for (FeedEntry entry : changed.values()) {
      markDirty(entry);
      entries.put(entry.entryId, entry);
    }
    return stillWaiting;
  }

  /**
   * Keeps one timer of each kind due no later than the earliest waiting event needs it; a timer
   * that already fired (or none) is set again, a later one left to fire and find nothing.
   */
  private void rearm(Context ctx, Waiting waiting) throws Exception {
    if (waiting.none()) {
      if (clock.releaseAt != NONE || clock.patienceAt != NONE) {
        clock.releaseAt = NONE;
        clock.patienceAt = NONE;
        clockChanged = true;
      }
      return;
    }
    long release = clock.releaseAt;
    if (release == NONE
        || release <= ctx.timerService().currentWatermark()
        || release > waiting.earliestAt()) {
      ctx.timerService().registerEventTimeTimer(waiting.earliestAt());
      clock.releaseAt = waiting.earliestAt();
      clockChanged = true;
    }
    long patience = roundUp(waiting.earliestArrival() + settings.outOfOrdernessMs());
    long patient = clock.patienceAt;
    if (patient == NONE
        || patient <= ctx.timerService().currentProcessingTime()
        || patient > patience) {
      ctx.timerService().registerProcessingTimeTimer(patience);
      clock.patienceAt = patience;
      clockChanged = true;
    }
  }

  /**
   * Applies an event in order: join the open entry or open a new one. The entries it changes are
   * kept in {@code changed} (read from state once), for the caller to write.
   */
  private void apply(
      Pending p, Context ctx, Collector<FeedWrite> out, Map<String, FeedEntry> changed)
      throws Exception {
    ActivityEvent event = p.event;
    long at = p.at();
    String openId = clock.openEntryId;
    FeedEntry open = null;
    if (openId != null) {
      open = changed.get(openId);
      if (open == null) {
        open = entries.get(openId);
      }
    }
    FeedEntry entry;
    if (joins(open, at)) {
      entry = open;
      entry.setLastAt(Math.max(entry.lastAt, at));
      if (p.overtaken) {
        // It may have been shown as opening an entry before the earlier event came (see above).
        CollationKey key = ctx.getCurrentKey();
        String mayHaveOpened = FeedEntry.entryId(key, at, event.eventId());
        if (!changed.containsKey(mayHaveOpened)
            && !entries.contains(mayHaveOpened)
            && (!clock.shown || !shown.contains(mayHaveOpened))) {
          out.collect(FeedWrite.retract(key.workspaceId(), mayHaveOpened));
        }
      }
    } else {
      entry = newEntry(event, at, ctx);
      clock.openEntryId = entry.entryId;
    }
    addDetails(entry, event, at, ctx);
    changed.put(entry.entryId, entry);
    clock.frontier = clock.frontier == NONE ? at : Math.max(clock.frontier, at);
    clockChanged = true;
  }

  private boolean joins(FeedEntry open, long at) {
    return open != null
        && at - open.lastAt <= settings.gapMs()
        && at - open.firstAt <= settings.maxSpanMs();
  }

  /** A late event: merge into the entry whose span it fits, else an entry of its own. */
  private void applyLate(ActivityEvent event, Context ctx) throws Exception {
    long at = event.occurredAt().toEpochMilli();
    FeedEntry fit = null;
    for (FeedEntry e : entries.values()) {
      boolean near = at >= e.firstAt - settings.gapMs() && at <= e.lastAt + settings.gapMs();
      boolean withinSpan = Math.max(e.lastAt, at) - Math.min(e.firstAt, at) <= settings.maxSpanMs();
      if (near && withinSpan && (fit == null || e.firstAt < fit.firstAt)) {
        fit = e;
      }
    }
    FeedEntry entry = fit != null ? fit : newEntry(event, at, ctx);
    entry.setFirstAt(Math.min(entry.firstAt, at));
    entry.setLastAt(Math.max(entry.lastAt, at));
    addDetails(entry, event, at, ctx);
    markDirty(entry);
    entries.put(entry.entryId, entry);
  }

  /**
   * Moves what changed in the entry into the clock's list of entries to emit, before the entry is
   * written to state: the entry is then written only when it changes, not again at its emission.
   */
  private void markDirty(FeedEntry entry) {
    if (entry.changed == 0 && entry.stored) {
      return;
    }
    Dirty dirty = null;
    for (Dirty d : clock.dirty) {
      if (d.entryId.equals(entry.entryId)) {
        dirty = d;
        break;
      }
    }
    if (dirty == null) {
      dirty = new Dirty();
      dirty.entryId = entry.entryId;
      clock.dirty.add(dirty);
    }
    dirty.changed |= entry.changed;
    dirty.created |= !entry.stored;
    entry.changed = 0;
    entry.stored = true;
    clockChanged = true;
  }

  private FeedEntry newEntry(ActivityEvent event, long at, Context ctx) {
    entriesOpened.inc();
    FeedEntry entry = FeedEntry.open(ctx.getCurrentKey(), at, event.eventId());
    // One timer per entry; when it fires early (the entry grew), it is set again.
    setEntryTimer(entry, nextTimer(entry, ctx.timerService().currentWatermark()), ctx);
    return entry;
  }

  /** Sets the entry's one timer, and the key's earliest entry timer with it. */
  private void setEntryTimer(FeedEntry entry, long at, Context ctx) {
    entry.archiveTimerAt = at;
    ctx.timerService().registerEventTimeTimer(at);
    if (at < clock.entryTimerAt) {
      clock.entryTimerAt = at;
      clockChanged = true;
    }
  }

  /** Counts the event into the entry (the caller writes the entry to state). */
  private void addDetails(FeedEntry entry, ActivityEvent event, long at, Context ctx)
      throws Exception {
    entry.incrementCount();
    entry.addDetail(FeedEntry.Detail.of(event), settings.recentDetails());
    scheduleFlush(ctx);
  }

  private void scheduleFlush(Context ctx) {
    if (clock.flushAt == NONE) {
      long due = ctx.timerService().currentProcessingTime() + settings.coalesceMs();
      setFlushAt(due);
      ctx.timerService().registerProcessingTimeTimer(due);
    }
  }

  private void setFlushAt(long at) {
    clock.flushAt = at;
    clockChanged = true;
  }

  /**
   * The entries as they will be once the waiting events are applied in order: copies of the open
   * entry and of the entries the waiting events open, by id.
   */
  private Map<String, FeedEntry> provisionalView(CollationKey key) throws Exception {
    Map<String, FeedEntry> view = new LinkedHashMap<>();
    if (clock.waiting == 0) {
      return view;
    }
    List<Pending> waitingNow = new ArrayList<>();
    waitingNow.addAll(waitingEvents());
    if (waitingNow.isEmpty()) {
      return view;
    }
    waitingNow.sort(Comparator.comparingLong(Pending::at).thenComparing(p -> p.event.eventId()));
    String openId = clock.openEntryId;
    FeedEntry open = openId == null ? null : entries.get(openId);
    FeedEntry current = open == null ? null : open.copy();
    for (Pending p : waitingNow) {
      long at = p.at();
      if (joins(current, at)) {
        current.setLastAt(Math.max(current.lastAt, at));
      } else {
        current = FeedEntry.open(key, at, p.event.eventId());
      }
      current.incrementCount();
      current.addDetail(FeedEntry.Detail.of(p.event), settings.recentDetails());
      view.put(current.entryId, current);
    }
    return view;
  }

  /**
   * Emits every entry that differs from what was last emitted, naming what changed: the ordered
   * entries, shown with the waiting events applied (see "Freshness" above).
   */
  private void flush(CollationKey key, Collector<FeedWrite> out) throws Exception {
    Map<String, FeedEntry> view = provisionalView(key);
    Map<String, FeedEntry> dirty = new LinkedHashMap<>();
    Map<String, Dirty> pending = new HashMap<>();
    for (Dirty d : clock.dirty) {
      FeedEntry entry = entries.get(d.entryId);
      if (entry != null) {
        dirty.put(d.entryId, entry);
        pending.put(d.entryId, d);
      }
    }
    Set<String> ids = new LinkedHashSet<>(dirty.keySet());
    ids.addAll(view.keySet());
    // Almost always empty: read only if it may hold something. A remove of an absent id is a
    // RocksDB tombstone that every later seek of the state had to step over (issue 27).
    Set<String> stillShown = new HashSet<>();
    if (clock.shown) {
      shown.keys().forEach(stillShown::add);
      ids.addAll(stillShown);
    }
    for (String id : ids) {
      FeedEntry ordered = dirty.containsKey(id) ? dirty.get(id) : entries.get(id);
      FeedEntry target = view.getOrDefault(id, ordered);
      FeedEntry last = stillShown.contains(id) ? shown.get(id) : null;
      if (target == null) {
        out.collect(FeedWrite.retract(last.workspaceId, id));
        retracted.inc();
        shown.remove(id);
        stillShown.remove(id);
        continue;
      }
      Dirty orderedDirty = pending.get(id);
      int orderedChanged = orderedDirty == null ? 0 : orderedDirty.changed;
      boolean created =
          last == null && (ordered == null || (orderedDirty != null && orderedDirty.created));
      int changed;
      if (last != null) {
        changed = FeedEntry.diff(last, target);
      } else if (ordered != null && target != ordered) {
        changed = orderedChanged | FeedEntry.diff(ordered, target);
      } else {
        changed = target == ordered ? orderedChanged : target.changed;
      }
      if (created || changed != 0) {
        out.collect(FeedWrite.upsert(target, changed, created));
        writesEmitted.inc();
      }
      if (target == ordered) {
        if (stillShown.remove(id)) {
          shown.remove(id);
        }
      } else {
        target.changed = 0;
        shown.put(id, target);
        stillShown.add(id);
      }
    }
    if (!clock.dirty.isEmpty()) {
      clock.dirty = new ArrayList<>(); // all emitted
      clockChanged = true;
    }
    boolean shownNow = !stillShown.isEmpty();
    if (clock.shown != shownNow) {
      clock.shown = shownNow;
      clockChanged = true;
    }
  }

  /**
   * Handles the entries whose timer is due: archives those past archive-after, forgets the ids of
   * those past dedupe-window, and sets the timer again for the others (grown since it was set).
   */
  private void archiveDue(Context ctx, Collector<FeedWrite> out) throws Exception {
    long watermark = ctx.timerService().currentWatermark();
    if (clock.entryTimerAt > watermark) {
      return; // the common case: a release timer; neither the entries nor the ids are read
    }
    List<FeedEntry> due = new ArrayList<>();
    long earliest = Long.MAX_VALUE;
    for (FeedEntry entry : entries.values()) {
      if (entry.archiveTimerAt <= watermark) {
        due.add(entry);
      } else {
        earliest = Math.min(earliest, entry.archiveTimerAt);
      }
    }
    clock.entryTimerAt = earliest;
    clockChanged = true;
    if (due.isEmpty()) {
      return;
    }
    for (FeedEntry entry : due) {
      if (archiveTime(entry) <= watermark) {
        out.collect(FeedWrite.archive(entry));
        archived.inc();
        entries.remove(entry.entryId);
        if (clock.dirty.removeIf(d -> d.entryId.equals(entry.entryId))) {
          clockChanged = true; // the archive write carries the entry as it is
        }
        if (clock.shown) {
          shown.remove(entry.entryId);
        }
        if (entry.entryId.equals(clock.openEntryId)) {
          clock.openEntryId = null;
        }
      } else {
        setEntryTimer(entry, nextTimer(entry, watermark), ctx);
        entries.put(entry.entryId, entry);
      }
    }
    forgetIds(watermark);
  }

  /**
   * Drops the ids of events whose entry left the state or ended more than dedupe-window ago. An
   * applied event lies within its entry's span (joining or merging widens the span to its time), so
   * an id is kept while a remembered entry spans its time, or while it may wait (a waiting event is
   * never older than the latest applied one: releases go in event-time order). One write per event:
   * the entry's id is not written into {@code seen} (issue 27).
   */
  private void forgetIds(long watermark) throws Exception {
    List<FeedEntry> remembered = new ArrayList<>();
    for (FeedEntry entry : entries.values()) {
      if (entry.lastAt + settings.dedupeWindowMs() > watermark) {
        remembered.add(entry);
      }
    }
    if (clock.seenIds != null) {
      if (clock.seenIds.removeIf(id -> !remembered(id.at, clock.frontier, remembered))) {
        clockChanged = true;
      }
      return;
    }
    Iterator<Map.Entry<String, Long>> ids = seen.iterator();
    while (ids.hasNext()) {
      if (!remembered(ids.next().getValue(), clock.frontier, remembered)) {
        ids.remove();
      }
    }
  }

  /** Whether the id of an event at {@code at} is still needed (see {@link #forgetIds}). */
  private static boolean remembered(long at, long frontier, List<FeedEntry> entries) {
    if (at >= frontier) {
      return true;
    }
    for (FeedEntry entry : entries) {
      if (entry.firstAt <= at && at <= entry.lastAt) {
        return true;
      }
    }
    return false;
  }

  /** Nothing left for this key: drop the bookkeeping too, so idle keys cost no state. */
  private void clearIfEmpty() throws Exception {
    if (clock.waiting > 0 || clock.openEntryId != null) {
      return; // the open entry is in state: not empty, and nothing read to know it
    }
    // Nothing waits (counted when the clock was read): only the entries and shown are looked at.
    if (entries.isEmpty() && (!clock.shown || shown.isEmpty())) {
      if (clock.seenIds == null) {
        seen.clear(); // else it holds nothing: a seek saved
      }
      if (clocks == null) {
        clockState.clear();
      } else {
        held.clock = null;
        held.clockWritten = true;
      }
      clockChanged = false;
    }
  }

  private long archiveTime(FeedEntry entry) {
    return entry.lastAt + settings.archiveAfterMs();
  }

  /** When the entry needs its timer next: its ids forgotten, if not yet, else its archival. */
  private long nextTimer(FeedEntry entry, long watermark) {
    long forgetAt = entry.lastAt + settings.dedupeWindowMs();
    return forgetAt > watermark && forgetAt < archiveTime(entry) ? forgetAt : archiveTime(entry);
  }

  private static long roundUp(long ms) {
    return (ms / 100 + 1) * 100;
  }
}
