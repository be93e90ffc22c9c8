package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The collator through its harness: the rule as the collator applies it (entries, late events), the
 * order it applies events in, and the timers it keeps for them. The rule on its own: {@link
 * CollationRuleTest}.
 */
class CollatorTest extends CollatorTestBase {

  @Test
  void eventsWithinTheGapFormOneEntryAndALongerGapOpensAnother() throws Exception {
    send("e1", 0, "push");
    send("e2", 5 * MIN, "push");
    send("e3", 15 * MIN + 1, "push"); // 10 min + 1 ms after e2
    watermark(20 * MIN);
    flushAt(1_000);

    Map<String, FeedEntry> entries = latestEntries();
    assertThat(entries.values()).extracting(e -> e.eventCount).containsExactlyInAnyOrder(2, 1);
    FeedEntry first = entries.get(FeedEntry.entryId(key("push"), T0.toEpochMilli(), "e1"));
    assertThat(first.firstAt).isEqualTo(T0.toEpochMilli());
    assertThat(first.lastAt).isEqualTo(T0.toEpochMilli() + 5 * MIN);
    assertThat(entries)
        .containsKey(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 15 * MIN + 1, "e3"));
  }

  @Test
  void theWholeSpanIsBoundedByMaxSpan() throws Exception {
    for (int i = 0; i <= 8; i++) {
      send("e" + i, i * 9 * MIN, "push"); // every 9 min: each within the gap, 72 min in all
    }
    watermark(80 * MIN);
    flushAt(1_000);
    List<FeedEntry> entries = new ArrayList<>(latestEntries().values());
    entries.sort((a, b) -> Long.compare(a.firstAt, b.firstAt));
    assertThat(entries)
        .extracting(e -> e.eventCount)
        .containsExactly(7, 2); // 0..54 min, then 63..72 min
    assertThat(entries.get(0).lastAt - entries.get(0).firstAt).isLessThanOrEqualTo(60 * MIN);
  }

  @Test
  void differentActionsNeverCollate() throws Exception {
    send("e1", 0, "push");
    send("e2", MIN, "pull_request.opened");
    watermark(2 * MIN);
    flushAt(1_000);
    assertThat(latestEntries()).hasSize(2);
  }

  @Test
  void aLateEventMergesIntoTheEntryItFitsOrGetsItsOwn() throws Exception {
    send("e1", 10 * MIN, "push");
    send("e2", 12 * MIN, "push");
    watermark(13 * MIN);
    send("late-fits", 5 * MIN, "push"); // before the entry, within the gap: merged
    send("late-alone", -2 * 60 * MIN, "push"); // two hours earlier: an entry of its own
    flushAt(1_000);

    Map<String, FeedEntry> entries = latestEntries();
    assertThat(entries).hasSize(2);
    FeedEntry main =
        entries.get(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10 * MIN, "e1"));
    assertThat(main.eventCount).isEqualTo(3);
    assertThat(main.firstAt).isEqualTo(T0.toEpochMilli() + 5 * MIN);
    assertThat(entries)
        .containsKey(FeedEntry.entryId(key("push"), T0.toEpochMilli() - 120 * MIN, "late-alone"));

    // The open entry stayed open: the next in-order event joins it.
    send("e3", 14 * MIN, "push");
    watermark(15 * MIN);
    flushAt(2_000);
    assertThat(latestEntries().get(main.entryId).eventCount).isEqualTo(4);
  }

  @Test
  void disorderWithinTheBoundGivesTheSameEntriesAsSortedInput() throws Exception {
    List<long[]> times = new ArrayList<>();
    long t = 0;
    Random random = new Random(7);
    for (int i = 0; i < 60; i++) {
      t += random.nextInt(4) == 0 ? 11 * MIN : random.nextInt(3 * (int) MIN);
      times.add(new long[] {i, t});
    }
    Map<String, FeedEntry> sorted = runWatermarked(times, 0);

    List<long[]> shuffled = new ArrayList<>(times);
    // Swap neighbours whose times are within the 5 s bound of each other, and shuffle small runs.
    for (int i = 0; i + 1 < shuffled.size(); i += 2) {
      Collections.swap(shuffled, i, i + 1);
    }
    reopen(null);
    Map<String, FeedEntry> disordered = runWatermarked(shuffled, 5_000);

    assertThat(disordered.keySet()).isEqualTo(sorted.keySet());
    disordered.forEach(
        (id, e) -> {
          assertThat(e.eventCount).isEqualTo(sorted.get(id).eventCount);
          assertThat(e.firstAt).isEqualTo(sorted.get(id).firstAt);
          assertThat(e.lastAt).isEqualTo(sorted.get(id).lastAt);
        });
  }

  /** The waiting events of a key share one timer of each kind, not one per event. */
  @Test
  void waitingEventsOfAKeyShareOneTimerOfEachKind() throws Exception {
    for (int i = 0; i < 50; i++) {
      send("burst-" + i, i * 1_000L, "push");
    }
    // One release timer, not one per event (no entry is open before the watermark passes).
    assertThat(harness.numEventTimeTimers()).isEqualTo(1);
    assertThat(harness.numProcessingTimeTimers()).isLessThanOrEqualTo(2);

    watermark(30_000);
    // The first 31 applied: the entry's archive timer, and the release timer set again at the
    // next waiting event.
    assertThat(harness.numEventTimeTimers()).isEqualTo(2);
    watermark(60_000);
    flushAt(1_000);
    assertThat(latestEntries().values()).extracting(e -> e.eventCount).containsExactly(50);
  }

  /**
   * A patience timer that fired after the watermark had released its events (replay speed, or any
   * input faster than the bound) would read the key's clock for nothing. The flush, due first, sets
   * it only for events still waiting.
   */
  @Test
  void eventsReleasedBeforeTheirFlushNeedNoPatienceTimer() throws Exception {
    for (int i = 0; i < 5; i++) {
      send("burst-" + i, i * 1_000L, "push");
    }
    assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // the flush
    watermark(10_000);
    flushAt(1_000);
    assertThat(harness.numProcessingTimeTimers()).isZero();
    assertThat(latestEntries().values()).extracting(e -> e.eventCount).containsExactly(5);
  }

  @Test
  void whenTheWatermarkStallsEventsAreAppliedAfterWaitingTheBound() throws Exception {
    send("e1", 0, "push");
    harness.setProcessingTime(1_000); // shown
    assertThat(latestEntries()).hasSize(1);
    assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // patience, set by the flush
    harness.setProcessingTime(5_100); // waited 5 s: applied without a watermark
    harness.setProcessingTime(6_200); // the ordered entry equals what was shown
    assertThat(harness.extractOutputValues()).hasSize(1);
    assertThat(harness.numEventTimeTimers()).isEqualTo(2); // its own, and the archive timer
  }

  @Test
  void theEndOfABoundedInputWritesEverythingAndArchivesNothing() throws Exception {
    send("e1", 0, "push");
    send("e2", 1_000, "push");
    harness.processWatermark(Long.MAX_VALUE); // no processing time passes
    List<FeedWrite> writes = harness.extractOutputValues();
    assertThat(writes)
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.kind).isEqualTo(FeedWrite.Kind.UPSERT);
              assertThat(w.entry.eventCount).isEqualTo(2);
            });
  }
}
