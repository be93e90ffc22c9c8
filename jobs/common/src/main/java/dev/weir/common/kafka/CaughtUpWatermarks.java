package dev.weir.common.kafka;

import java.util.function.LongSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.util.clock.RelativeClock;

/**
 * Watermarks of one split of a change stream, whose records come in the order they were made: the
 * highest event time read so far and, once the split has delivered nothing for {@code lag} of its
 * input's activity clock, the wall clock less {@code lag}. A split with nothing more to read has
 * caught up, and will only deliver changes made from now on, which reach it about {@code lag} after
 * they were made at most.
 *
 * <p>So a job reading a backlog (a replay from the start, or after an outage) holds its event-time
 * timers until every split has read up to them, whatever the order the splits are read in; a quiet
 * job still moves on. The activity clock stops while the job is back-pressured: a split that waits
 * for the job is not taken for one that caught up. A record later than {@code lag} is late: it is
 * still read, only not ordered with the others.
 */
public final class CaughtUpWatermarks<T> implements WatermarkGenerator<T> {

  private final RelativeClock activity;
  private final LongSupplier wallClock;
  private final long lagMs;
  private long highest = Long.MIN_VALUE;
  private long lastActive;
  private long emitted = Long.MIN_VALUE;

  public CaughtUpWatermarks(RelativeClock activity, LongSupplier wallClock, long lagMs) {
    this.activity = activity;
    this.wallClock = wallClock;
    this.lagMs = lagMs;
    this.lastActive = activity.relativeTimeMillis();
  }

  @Override
  public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
    highest = Math.max(highest, eventTimestamp);
    lastActive = activity.relativeTimeMillis();
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {
    long watermark = highest == Long.MIN_VALUE ? Long.MIN_VALUE : highest - 1;
    if (activity.relativeTimeMillis() - lastActive >= lagMs) {
      watermark = Math.max(watermark, wallClock.getAsLong() - lagMs);
    }
    if (watermark > emitted) {
      emitted = watermark;
      output.emitWatermark(new Watermark(watermark));
    }
  }
}
