package dev.weir.capture;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A slot's lag in seconds: how long ago the server's WAL was last at or before the position the
 * slot has confirmed. PostgreSQL says how many bytes a slot is behind but not how old they are;
 * this remembers the server's WAL position at each reading and answers with the time of the latest
 * one the slot has confirmed past (so the oldest unconfirmed change is at most that old). Bounded:
 * a slot behind every reading kept is at least as old as the oldest.
 */
final class LagClock {

  private record Reading(long atMs, long lsn) {}

  private final Deque<Reading> readings = new ArrayDeque<>();
  private final int maxReadings;

  LagClock(int maxReadings) {
    this.maxReadings = maxReadings;
  }

  /**
   * Seconds the slot is behind, from the server's and the slot's positions read at {@code nowMs}.
   */
  double lagSeconds(long nowMs, long currentLsn, long confirmedLsn) {
    readings.addLast(new Reading(nowMs, currentLsn));
    if (readings.size() > maxReadings) {
      readings.removeFirst();
    }
    if (confirmedLsn >= currentLsn) {
      while (readings.size() > 1) {
        readings.removeFirst();
      }
      return 0;
    }
    // Readings before the last one at or before the confirmed position answer nothing any more.
    while (readings.size() > 1 && secondOf(readings).lsn() <= confirmedLsn) {
      readings.removeFirst();
    }
    return (nowMs - readings.peekFirst().atMs()) / 1000.0;
  }

  private static Reading secondOf(Deque<Reading> readings) {
    var it = readings.iterator();
    it.next();
    return it.next();
  }
}
