package dev.weir.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

class CaughtUpWatermarksTest {

  private static final long LAG = 1_000;

  private final ManualClock activity = new ManualClock();
  private final long[] wall = {1_000_000};
  private final CaughtUpWatermarks<String> generator =
      new CaughtUpWatermarks<>(activity, () -> wall[0], LAG);
  private final List<Long> emitted = new ArrayList<>();
  private final WatermarkOutput output =
      new WatermarkOutput() {
        @Override
        public void emitWatermark(Watermark watermark) {
          emitted.add(watermark.getTimestamp());
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
      };

  @Test
  void aSplitReadingABacklogFollowsItsRecordsNotTheClock() {
    read(500_000);
    read(600_000);
    wall[0] += 10 * LAG; // the wall clock runs far ahead of the backlog's changes
    activity.advanceTime(LAG - 1, TimeUnit.MILLISECONDS);
    generator.onPeriodicEmit(output);
    assertThat(emitted).containsExactly(599_999L);
  }

  @Test
  void aSplitWithNothingToReadForTheLagMovesWithTheClockLessTheLag() {
    read(999_500);
    activity.advanceTime(LAG, TimeUnit.MILLISECONDS);
    wall[0] += LAG;
    generator.onPeriodicEmit(output);
    assertThat(emitted).containsExactly(wall[0] - LAG);
  }

  @Test
  void anEmptySplitMovesWithTheClockOnceTheLagPassed() {
    generator.onPeriodicEmit(output);
    assertThat(emitted).isEmpty();
    activity.advanceTime(LAG, TimeUnit.MILLISECONDS);
    generator.onPeriodicEmit(output);
    assertThat(emitted).containsExactly(wall[0] - LAG);
  }

  @Test
  void aBackPressuredSplitIsNotTakenForOneThatCaughtUp() {
    read(500_000);
    // Back-pressure stops the activity clock while the wall clock goes on.
    wall[0] += 60_000;
    generator.onPeriodicEmit(output);
    assertThat(emitted).containsExactly(499_999L);
  }

  @Test
  void theWatermarkNeverGoesBack() {
    activity.advanceTime(LAG, TimeUnit.MILLISECONDS);
    generator.onPeriodicEmit(output);
    read(wall[0] - 5 * LAG); // a late change: read, not ordered
    generator.onPeriodicEmit(output);
    read(wall[0] + 10);
    generator.onPeriodicEmit(output);
    assertThat(emitted).containsExactly(wall[0] - LAG, wall[0] + 9);
  }

  private void read(long eventTime) {
    generator.onEvent("change", eventTime, output);
  }
}
