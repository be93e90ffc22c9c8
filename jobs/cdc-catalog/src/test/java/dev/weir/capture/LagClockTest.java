package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LagClockTest {

  @Test
  void aSlotThatKeepsUpHasNoLag() {
    LagClock clock = new LagClock(100);
    assertThat(clock.lagSeconds(0, 100, 100)).isZero();
    assertThat(clock.lagSeconds(10_000, 200, 200)).isZero();
  }

  @Test
  void theLagIsTheTimeSinceTheWalWasLastWhereTheSlotConfirmed() {
    LagClock clock = new LagClock(100);
    clock.lagSeconds(0, 100, 100);
    clock.lagSeconds(10_000, 200, 100); // the slot stays at 100 while the WAL moves on
    clock.lagSeconds(20_000, 300, 100);
    assertThat(clock.lagSeconds(30_000, 400, 100)).isEqualTo(30.0);
    // It confirms 250: the WAL was last at or before that 20 s ago (at 200, read at 10 s).
    assertThat(clock.lagSeconds(30_000, 400, 250)).isEqualTo(20.0);
    assertThat(clock.lagSeconds(40_000, 450, 450)).isZero();
  }

  @Test
  void aSlotBehindEveryReadingKeptIsAtLeastAsOldAsTheOldest() {
    LagClock clock = new LagClock(3);
    clock.lagSeconds(0, 100, 50);
    clock.lagSeconds(10_000, 200, 50);
    clock.lagSeconds(20_000, 300, 50);
    assertThat(clock.lagSeconds(30_000, 400, 50)).isEqualTo(20.0); // 0 s fell out of the three
  }
}
