package dev.weir.feed;

import static dev.weir.feed.Clock.NONE;

import dev.weir.feed.Clock.Dirty;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.util.Collector;

/**
 * A key's writes, coalesced: a changed entry is emitted at most once per half of {@code
 * max-staleness} (the store gets a quarter, see {@link FeedSettings}), naming the columns that
 * changed since its last emission.
 *
 * <p>Waiting for the watermark would make the feed staler than that bound, so each emission also
 * shows the waiting events, applied in order to copies of the entries: a provisional view. Once the
 * watermark passes them, the ordered result almost always equals what was shown, and nothing more
 * is written. It differs only when an earlier event arrives after a later one across an entry
 * boundary (the later one was shown as opening an entry that the ordered input merges away): then
 * that provisional row is retracted (a DELETE) and the surviving entry updated. The last emitted
 * version of such entries is kept in {@code shown} until the ordered result confirms it, so that
 * the diff names only changed columns.
 */
final class CoalescedWrites {

  private final CollationRule rule;
  private final long coalesceMs;
  private final MapState<String, FeedEntry> entries;
  private final MapState<String, FeedEntry> shown;
  private final ClockStore clocks;
  private final InternalTimerService<VoidNamespace> timers;
  private final Counter writesEmitted;
  private final Counter retracted;

  CoalescedWrites(
      CollationRule rule,
      FeedSettings settings,
      CollatorState state,
      ClockStore clocks,
      InternalTimerService<VoidNamespace> timers,
      Counter writesEmitted,
      Counter retracted) {
    this.rule = rule;
    this.coalesceMs = settings.coalesceMs();
    this.entries = state.entries;
    this.shown = state.shown;
    this.clocks = clocks;
    this.timers = timers;
    this.writesEmitted = writesEmitted;
    this.retracted = retracted;
  }

  /** Schedules the key's next flush, unless one is. */
  void schedule() {
    Clock clock = clocks.clock();
    if (clock.flushAt == NONE) {
      long due = timers.currentProcessingTime() + coalesceMs;
      clock.flushAt = due;
      clocks.changed();
      timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, due);
    }
  }

  /** Whether the key's flush is due at {@code now}. */
  boolean due(long now) {
    long flushAt = clocks.clock().flushAt;
    return flushAt != NONE && flushAt <= now;
  }

  /**
   * Moves what changed in the entry into the clock's list of entries to emit, before the entry is
   * written to state: the entry is then written only when it changes, not again at its emission.
   */
  void markDirty(FeedEntry entry) {
    if (entry.changed == 0 && entry.stored) {
      return;
    }
    Clock clock = clocks.clock();
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
    clocks.changed();
  }

  /** Whether the entry is shown provisionally: the next flush confirms or retracts it. */
  boolean isShown(String entryId) throws Exception {
    return clocks.clock().shown && shown.contains(entryId);
  }

  /** The entry left the state (archived): nothing of it is emitted again. */
  void forget(String entryId) throws Exception {
    Clock clock = clocks.clock();
    if (clock.dirty.removeIf(d -> d.entryId.equals(entryId))) {
      clocks.changed(); // the archive write carries the entry as it is
    }
    if (clock.shown) {
      shown.remove(entryId);
    }
  }

  /**
   * Emits every entry that differs from what was last emitted, naming what changed: the ordered
   * entries, shown with the waiting events applied.
   */
  void flush(CollationKey key, Collector<FeedWrite> out) throws Exception {
    Clock clock = clocks.clock();
    clock.flushAt = NONE;
    clocks.changed();
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
    // Almost always empty: read only if it may hold something. A remove of an absent id would be a
    // RocksDB tombstone that every later seek of the state steps over.
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
    }
    clock.shown = !stillShown.isEmpty();
  }

  /**
   * The entries as they will be once the waiting events are applied in order: copies of the open
   * entry and of the entries the waiting events open, by id.
   */
  private Map<String, FeedEntry> provisionalView(CollationKey key) throws Exception {
    Clock clock = clocks.clock();
    if (clock.waiting == 0) {
      return Map.of();
    }
    List<WaitingEvent> waiting = new ArrayList<>(clocks.waitingEvents());
    if (waiting.isEmpty()) {
      return Map.of();
    }
    waiting.sort(CollationRule.ORDER);
    String openId = clock.openEntryId;
    FeedEntry open = openId == null ? null : entries.get(openId);
    return rule.applyInOrder(key, open, waiting);
  }
}
