package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A row's stamps: changes in their LSN order, a re-delivery of an older change dropped, and a
 * snapshot of a known row (a re-snapshot, a new cluster whose LSNs start lower) newer than all it
 * had.
 */
class RowTrackerTest {

  @Test
  void changesAreOrderedByLsnAndAnOlderOneIsAReDelivery() {
    long first = RowTracker.stamp(change(false, 500), -1, 0);
    long second = RowTracker.stamp(change(false, 900), first, 0);
    assertThat(second).isGreaterThan(first);
    assertThat(RowTracker.stamp(change(false, 700), second, 0)).isLessThan(second);
  }

  @Test
  void aSnapshotOfAKnownRowStartsANewEpochWhateverItsLsn() {
    long streamed = RowTracker.stamp(change(false, 9_000_000), -1, 0);
    long resnapshot = RowTracker.stamp(change(true, 100), streamed, 0);
    assertThat(resnapshot).isGreaterThan(streamed);
    assertThat(Stamps.epoch(resnapshot)).isEqualTo(1);
    // The new cluster's changes follow at its lower LSNs.
    assertThat(RowTracker.stamp(change(false, 200), resnapshot, 0)).isGreaterThan(resnapshot);
  }

  @Test
  void aChangeWithoutLsnKeepsTheRowsLastAndARaisedSourceEpochWins() {
    long known = RowTracker.stamp(change(false, 5_000), -1, 0);
    assertThat(RowTracker.stamp(change(false, -1), known, 0)).isEqualTo(known);
    long moved = RowTracker.stamp(change(false, 10), known, 1);
    assertThat(moved).isGreaterThan(known);
  }

  private static RowChange change(boolean snapshot, long lsn) {
    RowChange c = new RowChange();
    c.snapshot = snapshot;
    c.lsn = lsn;
    return c;
  }
}
