package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the collator writes, and when: coalesced, naming changed columns, shown early. */
class CoalescedWritesTest extends CollatorTestBase {

  @Test
  void aBurstIsCoalescedIntoFewWritesNamingOnlyChangedColumns() throws Exception {
    for (int i = 0; i < 100; i++) {
      send("e" + i, i * 1_000L, "push");
    }
    watermark(100_000);
    flushAt(1_000);
    assertThat(harness.extractOutputValues())
        .singleElement()
        .satisfies(w -> assertThat(w.created).isTrue());

    send("e100", 101_000, "push");
    watermark(102_000);
    flushAt(2_000);
    List<FeedWrite> writes = harness.extractOutputValues();
    assertThat(writes).hasSize(2);
    FeedWrite update = writes.get(1);
    assertThat(update.created).isFalse();
    assertThat(update.changed)
        .isEqualTo(FeedEntry.LAST_AT | FeedEntry.EVENT_COUNT | FeedEntry.RECENT_DETAILS);
    assertThat(update.entry.recentDetails)
        .hasSize(3)
        .first()
        .satisfies(d -> assertThat(d.eventId).isEqualTo("e100"));
  }

  @Test
  void waitingEventsAreShownWithinTheStalenessBoundThenConfirmedWithoutAnotherWrite()
      throws Exception {
    send("e2", 10_000, "push");
    send("e1", 6_000, "push"); // out of order, within the bound
    assertThat(harness.numEventTimeTimers()).isEqualTo(2); // they wait for the watermark
    flushAt(1_000); // half the staleness bound, with no watermark yet
    FeedEntry shown = latestEntries().values().iterator().next();
    // Shown as the ordered input will have it: e1 opened the entry.
    assertThat(shown.entryId)
        .isEqualTo(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 6_000, "e1"));
    assertThat(shown.eventCount).isEqualTo(2);

    watermark(10_000); // now applied in order: the same entry, so it is not written again
    flushAt(2_000);
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.UPSERT)
        .hasSize(1);
    // e2 was overtaken by e1, so it might have been shown opening an entry before a crash that
    // state forgot: its possible entry is retracted, an idempotent DELETE.
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.RETRACT)
        .extracting(w -> w.entry.entryId)
        .containsExactly(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10_000, "e2"));
    send("e3", 11_000, "push");
    flushAt(3_000);
    assertThat(harness.extractOutputValues())
        .last()
        .satisfies(
            w -> {
              assertThat(w.created).isFalse();
              assertThat(w.entry.eventCount).isEqualTo(3);
              assertThat(w.changed)
                  .isEqualTo(FeedEntry.LAST_AT | FeedEntry.EVENT_COUNT | FeedEntry.RECENT_DETAILS);
            });
  }

  @Test
  void aProvisionalEntryThatTheOrderedInputMergesAwayIsRetracted() throws Exception {
    send("e1", 0, "push");
    watermark(MIN);
    flushAt(1_000);
    send("e3", 10 * MIN + 3_000, "push"); // beyond the gap after e1: shown as a new entry
    flushAt(2_000);
    String e3Entry = FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10 * MIN + 3_000, "e3");
    assertThat(latestEntries()).hasSize(2).containsKey(e3Entry);

    send("e2", 9 * MIN, "push"); // earlier, within the bound: bridges the gap
    flushAt(3_000);
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.RETRACT)
        .singleElement()
        .satisfies(w -> assertThat(w.entry.entryId).isEqualTo(e3Entry));
    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(3));

    int before = harness.extractOutputValues().size();
    watermark(11 * MIN); // applied in order: confirms what is shown
    flushAt(4_000);
    assertThat(harness.extractOutputValues().subList(before, harness.extractOutputValues().size()))
        .allMatch(w -> w.kind == FeedWrite.Kind.RETRACT); // only the idempotent safety retraction
    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(3));
    assertThat(harness.numKeyedStateEntries()).isPositive();
  }

  @Test
  void aProvisionalEntryShownBeforeACrashIsRetractedAfterTheReplay() throws Exception {
    send("e1", 0, "push");
    watermark(MIN);
    flushAt(1_000);
    var checkpoint = harness.snapshot(1, 1_000);
    send("e3", 10 * MIN + 3_000, "push"); // shown as a new entry, then the job dies
    flushAt(2_000);
    String e3Entry = FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10 * MIN + 3_000, "e3");
    assertThat(latestEntries()).containsKey(e3Entry);

    // Restored from the checkpoint, which knows nothing of e3; the replay brings e2 in between.
    reopen(checkpoint);
    send("e3", 10 * MIN + 3_000, "push");
    send("e2", 9 * MIN, "push");
    watermark(11 * MIN);
    flushAt(2_000);

    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.RETRACT)
        .extracting(w -> w.entry.entryId)
        .containsExactly(e3Entry);
  }
}
