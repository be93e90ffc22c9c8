package dev.weir.feed;

import static dev.weir.feed.Clock.NONE;

import dev.weir.common.metrics.WeirMetrics;
import dev.weir.schema.ActivityEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Collates one key's events into feed entries, on event time: the activity feed's operator. Each
 * concern is a part of its own, all of them working on the current key:
 *
 * <ul>
 *   <li>{@link CollationRule}: when an event joins an entry (gap, max span, late events, the
 *       entry's id), as a function of event times alone.
 *   <li>{@link EventOrder}: events wait until the watermark passes them (or until they waited the
 *       out-of-orderness bound), then are applied in event-time order.
 *   <li>{@link CoalescedWrites}: changed entries are emitted at most once per half of the staleness
 *       bound, shown with the waiting events applied (the provisional view).
 *   <li>{@link EventIds}: a duplicate event id counts once while its entry remembers it.
 *   <li>{@link Archival}: each entry's timer forgets its ids, then archives it.
 *   <li>{@link ClockStore}: the key's bookkeeping ({@link Clock}) and waiting events, held on the
 *       heap between checkpoints.
 *   <li>{@link CollatorState}: the keyed state they all keep, and its serializers.
 * </ul>
 *
 * <p>Late events (older than what their key already applied) are merged into the entry whose span
 * they fit, or else form an entry of their own; the open entry stays open. If the job crashes after
 * showing a provisional entry and before a checkpoint, what it showed is not in state: so an event
 * that was overtaken by an earlier one and then joins an entry it did not open always retracts the
 * entry it may have opened (an idempotent DELETE that usually finds no row). At the end of a
 * bounded input (the final watermark) everything waiting is applied and written; nothing is
 * archived, since no time has passed.
 *
 * <p>An operator rather than a process function: writing held clocks back needs the current key
 * set, which only an operator can do.
 */
public final class Collator extends AbstractStreamOperator<FeedWrite>
    implements OneInputStreamOperator<ActivityEvent, FeedWrite>,
        Triggerable<CollationKey, VoidNamespace> {

  private static final long serialVersionUID = 1L;

  private final FeedSettings settings;
  private final int heldKeys;

  private transient CollationRule rule;
  private transient CollatorState state;
  private transient ClockStore clocks;
  private transient EventIds ids;
  private transient EventOrder order;
  private transient CoalescedWrites writes;
  private transient Archival archival;
  private transient InternalTimerService<VoidNamespace> timers;
  private transient KeyedStateBackend<CollationKey> keys;
  private transient TimestampedCollector<FeedWrite> out;

  private transient Counter eventsIn;
  private transient Counter duplicates;
  private transient Counter lateEvents;
  private transient Counter entriesOpened;

  /** Holding as many keys between checkpoints as the settings say ({@code feed.held-keys}). */
  public Collator(FeedSettings settings) {
    this(settings, settings.heldKeys());
  }

  /** Holding {@code heldKeys} keys; 0: none, every call reads and writes keyed state. */
  Collator(FeedSettings settings, int heldKeys) {
    this.settings = settings;
    this.heldKeys = heldKeys;
    this.chainingStrategy = ChainingStrategy.ALWAYS;
  }

  @Override
  public void open() throws Exception {
    super.open();
    out = new TimestampedCollector<>(output);
    keys = getKeyedStateBackend();
    timers = getInternalTimerService(CollatorState.TIMERS, VoidNamespaceSerializer.INSTANCE, this);
    rule = new CollationRule(settings);
    state = new CollatorState(getKeyedStateStore());
    clocks = new ClockStore(state, this, heldKeys);
    ids = new EventIds(state.seen, clocks);
    order = new EventOrder(settings, clocks, timers);
    MetricGroup metrics = getMetricGroup();
    eventsIn = metrics.counter(WeirMetrics.EVENTS_IN);
    duplicates = metrics.counter("weirDuplicateEvents");
    lateEvents = metrics.counter(WeirMetrics.LATE_EVENTS);
    entriesOpened = metrics.counter("weirEntriesOpened");
    writes =
        new CoalescedWrites(
            rule,
            settings,
            state,
            clocks,
            timers,
            metrics.counter("weirEntryWritesEmitted"),
            metrics.counter("weirProvisionalEntriesRetracted"));
    archival =
        new Archival(
            rule, state, clocks, ids, writes, timers, metrics.counter("weirEntriesArchived"));
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    // Before the keyed state is taken: Flink snapshots it after this.
    clocks.flush();
  }

  /** Writes the held clocks into keyed state, as a checkpoint does. */
  void flushClocks() throws Exception {
    clocks.flush();
  }

  @Override
  public void processElement(StreamRecord<ActivityEvent> record) throws Exception {
    ActivityEvent event = record.getValue();
    eventsIn.inc();
    Clock clock = clocks.load(keys.getCurrentKey());
    if (ids.seenBefore(event.eventId())) {
      duplicates.inc();
      return;
    }
    long at = event.occurredAt().toEpochMilli();
    ids.remember(event.eventId(), at);
    if (clock.frontier != NONE && at < clock.frontier) {
      lateEvents.inc();
      applyLate(event, at);
      clocks.save();
      return;
    }
    long now = timers.currentProcessingTime();
    order.await(new WaitingEvent(event, now), at);
    writes.schedule();
    order.armPatience(now);
    clocks.save();
  }

  @Override
  public void onEventTime(InternalTimer<CollationKey, VoidNamespace> timer) throws Exception {
    out.setAbsoluteTimestamp(timer.getTimestamp());
    clocks.load(timer.getKey());
    long watermark = timers.currentWatermark();
    release(watermark);
    if (watermark == Long.MAX_VALUE) {
      // The end of a bounded input: no more events will come, which makes nothing older. Write
      // what is pending now (processing-time timers do not fire after the end); archive nothing.
      writes.flush(timer.getKey(), out);
    } else {
      archival.due(watermark, out);
    }
    clearIfEmpty();
    clocks.save();
  }

  @Override
  public void onProcessingTime(InternalTimer<CollationKey, VoidNamespace> timer) throws Exception {
    out.eraseTimestamp();
    clocks.load(timer.getKey());
    long now = timers.currentProcessingTime();
    // The watermark stalled (e.g. the input paused): apply what has waited the bound, and
    // everything older than it, so the order among them is still kept.
    long patientUpTo = order.patientUpTo(now);
    release(patientUpTo);
    long watermark = timers.currentWatermark();
    if (patientUpTo != Long.MIN_VALUE && watermark < Long.MAX_VALUE) {
      // An event released here may be older than the watermark by more than archive-after
      // (replayed history): its archive timer is already past and would wait for the watermark
      // to move again, which a paused input never does. Archive it now.
      archival.due(watermark, out);
    }
    if (writes.due(now)) {
      writes.flush(timer.getKey(), out);
    }
    clearIfEmpty();
    clocks.save();
  }

  /** Applies the waiting events at or before {@code upTo}, in order; rearms for the rest. */
  private void release(long upTo) throws Exception {
    EventOrder.Released released = order.release(upTo);
    if (!released.ready().isEmpty()) {
      Map<String, FeedEntry> changed = new LinkedHashMap<>();
      for (WaitingEvent p : released.ready()) {
        apply(p, changed);
      }
      // Each changed entry written once, not once per event applied to it.
      for (FeedEntry entry : changed.values()) {
        writes.markDirty(entry);
        state.entries.put(entry.entryId, entry);
      }
    }
    order.rearm(released);
  }

  /**
   * Applies an event in order: it joins the open entry or opens a new one. The entries it changes
   * are kept in {@code changed} (read from state once), for the caller to write.
   */
  private void apply(WaitingEvent p, Map<String, FeedEntry> changed) throws Exception {
    Clock clock = clocks.clock();
    ActivityEvent event = p.event;
    long at = p.at();
    String openId = clock.openEntryId;
    FeedEntry open = null;
    if (openId != null) {
      open = changed.get(openId);
      if (open == null) {
        open = state.entries.get(openId);
      }
    }
    FeedEntry entry;
    if (rule.joins(open, at)) {
      entry = open;
      entry.setLastAt(Math.max(entry.lastAt, at));
      if (p.overtaken) {
        retractWhatItMayHaveOpened(p, at, changed);
      }
    } else {
      entry = newEntry(event, at);
      clock.openEntryId = entry.entryId;
    }
    count(entry, event);
    changed.put(entry.entryId, entry);
    clock.frontier = clock.frontier == NONE ? at : Math.max(clock.frontier, at);
    clocks.changed();
  }

  /**
   * An overtaken event that joins an entry it did not open may have been shown opening one before
   * the earlier event came, and a crash since may have lost what was shown: that entry is
   * retracted, unless it is in state.
   */
  private void retractWhatItMayHaveOpened(WaitingEvent p, long at, Map<String, FeedEntry> changed)
      throws Exception {
    CollationKey key = keys.getCurrentKey();
    String mayHaveOpened = FeedEntry.entryId(key, at, p.event.eventId());
    if (!changed.containsKey(mayHaveOpened)
        && !state.entries.contains(mayHaveOpened)
        && !writes.isShown(mayHaveOpened)) {
      out.collect(FeedWrite.retract(key.workspaceId(), mayHaveOpened));
    }
  }

  /** A late event: merged into the entry whose span it fits, else an entry of its own. */
  private void applyLate(ActivityEvent event, long at) throws Exception {
    FeedEntry fit = rule.lateFit(state.entries.values(), at);
    FeedEntry entry = fit != null ? fit : newEntry(event, at);
    entry.setFirstAt(Math.min(entry.firstAt, at));
    entry.setLastAt(Math.max(entry.lastAt, at));
    count(entry, event);
    writes.markDirty(entry);
    state.entries.put(entry.entryId, entry);
  }

  private FeedEntry newEntry(ActivityEvent event, long at) {
    entriesOpened.inc();
    FeedEntry entry = FeedEntry.open(keys.getCurrentKey(), at, event.eventId());
    // One timer per entry; when it fires early (the entry grew), it is set again.
    archival.setTimer(entry, timers.currentWatermark());
    return entry;
  }

  /** Counts the event into the entry (the caller writes the entry to state). */
  private void count(FeedEntry entry, ActivityEvent event) {
    rule.count(entry, event);
    writes.schedule();
  }

  /** Nothing left for this key: its bookkeeping goes too, so that idle keys cost no state. */
  private void clearIfEmpty() throws Exception {
    Clock clock = clocks.clock();
    if (clock.waiting > 0 || clock.openEntryId != null) {
      return; // the open entry is in state: not empty, and nothing read to know it
    }
    // Nothing waits (counted in the clock): only the entries and shown are looked at.
    if (state.entries.isEmpty() && (!clock.shown || state.shown.isEmpty())) {
      ids.clear();
      clocks.clear();
    }
  }
}
