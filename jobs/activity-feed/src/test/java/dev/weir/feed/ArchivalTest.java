package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Entries leave for the archive by their own timers, and leave no state behind. */
class ArchivalTest extends CollatorTestBase {

  @Test
  void anEntryIsArchivedByItsTimerAndLeavesNoStateBehind() throws Exception {
    send("e1", 0, "push");
    send("e2", MIN, "push");
    watermark(2 * MIN);
    flushAt(1_000);
    assertThat(harness.numEventTimeTimers()).isEqualTo(1); // the archive timer
    long archiveAt = T0.toEpochMilli() + MIN + Duration.ofDays(30).toMillis();

    harness.processWatermark(archiveAt - 1);
    assertThat(harness.extractOutputValues()).noneMatch(w -> w.kind == FeedWrite.Kind.ARCHIVE);

    harness.processWatermark(archiveAt);
    List<FeedWrite> archived =
        harness.extractOutputValues().stream()
            .filter(w -> w.kind == FeedWrite.Kind.ARCHIVE)
            .toList();
    assertThat(archived)
        .singleElement()
        .satisfies(w -> assertThat(w.entry.eventCount).isEqualTo(2));
    assertThat(harness.numKeyedStateEntries()).isZero();
    assertThat(harness.numEventTimeTimers()).isZero();

    // Its ids left with it: the same id now is a new event (documented), not a silent drop.
    send("e1", 0, "push");
    harness.processWatermark(archiveAt + 1);
    assertThat(harness.extractOutputValues().stream().filter(w -> w.kind == FeedWrite.Kind.ARCHIVE))
        .hasSize(2);
  }

  @Test
  void anEntryThatGrewIsArchivedFromItsNewLastEvent() throws Exception {
    send("e1", 0, "push");
    watermark(MIN);
    send("e2", 5 * MIN, "push");
    watermark(6 * MIN);
    harness.processWatermark(
        T0.toEpochMilli() + Duration.ofDays(30).toMillis() + MIN); // first timer: not due
    assertThat(harness.extractOutputValues()).noneMatch(w -> w.kind == FeedWrite.Kind.ARCHIVE);
    assertThat(harness.numEventTimeTimers()).isEqualTo(1); // set again for the new last event
    harness.processWatermark(T0.toEpochMilli() + Duration.ofDays(30).toMillis() + 5 * MIN);
    assertThat(harness.extractOutputValues()).anyMatch(w -> w.kind == FeedWrite.Kind.ARCHIVE);
  }

  @Test
  void anEventOlderThanTheArchiveAgeIsArchivedEvenIfTheWatermarkNeverMovesAgain() throws Exception {
    watermark(Duration.ofDays(40).toMillis());
    send("e1", 0, "push"); // 40 days behind the watermark, and then the input pauses
    harness.setProcessingTime(5_100); // waited the bound: applied, and already due for the archive
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.ARCHIVE)
        .singleElement()
        .satisfies(w -> assertThat(w.entry.eventCount).isEqualTo(1));
    harness.setProcessingTime(10_000);
    assertThat(latestEntries()).isEmpty();
    assertThat(harness.numKeyedStateEntries()).isZero();
  }
}
