package dev.weir.feed;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.util.Collector;

/**
 * Each entry's one event-time timer: first when its event ids are forgotten ({@code dedupe-window}
 * after its last event), then its archival ({@code archive-after}): the entry is emitted for the
 * move to the archive and leaves the state. State therefore holds only entries younger than
 * archive-after, and the ids of events younger than dedupe-window, which bounds the state of a key
 * that never pauses (a bot) to the ids of one window.
 */
final class Archival {

  private final CollationRule rule;
  private final MapState<String, FeedEntry> entries;
  private final ClockStore clocks;
  private final EventIds ids;
  private final CoalescedWrites writes;
  private final InternalTimerService<VoidNamespace> timers;
  private final Counter archived;

  Archival(
      CollationRule rule,
      CollatorState state,
      ClockStore clocks,
      EventIds ids,
      CoalescedWrites writes,
      InternalTimerService<VoidNamespace> timers,
      Counter archived) {
    this.rule = rule;
    this.entries = state.entries;
    this.clocks = clocks;
    this.ids = ids;
    this.writes = writes;
    this.timers = timers;
    this.archived = archived;
  }

  /** Sets the entry's one timer, and the key's earliest entry timer with it. */
  void setTimer(FeedEntry entry, long watermark) {
    long at = rule.nextTimer(entry, watermark);
    entry.archiveTimerAt = at;
    timers.registerEventTimeTimer(VoidNamespace.INSTANCE, at);
    Clock clock = clocks.clock();
    if (at < clock.entryTimerAt) {
      clock.entryTimerAt = at;
      clocks.changed();
    }
  }

  /**
   * Handles the entries whose timer is due at {@code watermark}: archives those past archive-after,
   * forgets the ids of those past dedupe-window, and sets the timer again for the others (grown
   * since it was set).
   */
  void due(long watermark, Collector<FeedWrite> out) throws Exception {
    Clock clock = clocks.clock();
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
    clocks.changed();
    if (due.isEmpty()) {
      return;
    }
    for (FeedEntry entry : due) {
      if (rule.archiveAt(entry) <= watermark) {
        out.collect(FeedWrite.archive(entry));
        archived.inc();
        entries.remove(entry.entryId);
        writes.forget(entry.entryId);
        if (entry.entryId.equals(clock.openEntryId)) {
          clock.openEntryId = null;
        }
      } else {
        setTimer(entry, watermark);
        entries.put(entry.entryId, entry);
      }
    }
    List<FeedEntry> remembering = new ArrayList<>();
    for (FeedEntry entry : entries.values()) {
      if (rule.remembersIds(entry, watermark)) {
        remembering.add(entry);
      }
    }
    ids.forget(remembering);
  }
}
