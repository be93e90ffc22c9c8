package dev.weir.common.kafka;

import dev.weir.schema.DeadLetter;
import dev.weir.schema.InvalidEventException;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.types.Either;
import org.apache.flink.util.TimeUtils;

/** How a source assigns event time; {@link #none()} for processing-time inputs. */
public final class Watermarks<T> implements Serializable {
  private static final long serialVersionUID = 1L;
  private final SerializableTimestampAssigner<T> assigner;
  private final Duration outOfOrderness;
  private final Duration idleness;
  private final Duration caughtUpLag;

  private Watermarks(
      SerializableTimestampAssigner<T> assigner,
      Duration outOfOrderness,
      Duration idleness,
      Duration caughtUpLag) {
    this.assigner = assigner;
    this.outOfOrderness = outOfOrderness;
    this.idleness = idleness;
    this.caughtUpLag = caughtUpLag;
  }

  public static <T> Watermarks<T> none() {
    return new Watermarks<>(null, null, null, null);
  }

  /**
   * Event time from the event, of a change stream read in the order it was made ({@link
   * CaughtUpWatermarks}): a split that has caught up moves with the wall clock less {@code lag}. An
   * event time ahead of the clock is taken as now (a source database's clock ahead of the job's
   * would otherwise hold every timer back), not refused: a change is never dropped for it.
   */
  public static <T> Watermarks<T> caughtUp(
      SerializableTimestampAssigner<T> assigner, Duration lag) {
    SerializableTimestampAssigner<T> notAhead =
        (event, kafkaTimestamp) ->
            Math.min(assigner.extractTimestamp(event, kafkaTimestamp), System.currentTimeMillis());
    return new Watermarks<>(notAhead, null, null, lag);
  }

  /** Event time from the event; watermarks lag the highest time seen by {@code outOfOrderness}. */
  public static <T> Watermarks<T> boundedOutOfOrderness(
      SerializableTimestampAssigner<T> assigner, Duration outOfOrderness, Duration idleness) {
    return new Watermarks<>(assigner, outOfOrderness, idleness, null);
  }

  /**
   * Refuses an event time too far ahead of the clock: one such event would move its partition's
   * watermark past every real event to come, which would then all be late (and, in the activity
   * feed, archive every entry at once).
   */
  public Conversion<T, T> check(Duration maxAhead) {
    if (assigner == null || caughtUpLag != null) {
      return Conversion.none();
    }
    SerializableTimestampAssigner<T> events = assigner;
    long limit = maxAhead.toMillis();
    return event -> {
      long time = events.extractTimestamp(event, Long.MIN_VALUE);
      EventTimes.requireStorable(Instant.ofEpochMilli(time));
      long ahead = time - System.currentTimeMillis();
      if (ahead <= limit) {
        return event;
      }
      throw new InvalidEventException(
          "event time "
              + Instant.ofEpochMilli(time)
              + " is "
              + (ahead >= Duration.ofDays(2).toMillis()
                  ? ahead / Duration.ofDays(1).toMillis() + " days"
                  : ahead / 60_000 + " min")
              + " ahead of the clock (event-time.max-ahead is "
              + TimeUtils.formatWithHighestUnit(maxAhead)
              + "): it would make every later event late");
    };
  }

  public WatermarkStrategy<Either<DeadLetter, T>> strategy() {
    if (assigner == null) {
      return WatermarkStrategy.noWatermarks();
    }
    SerializableTimestampAssigner<T> events = assigner;
    SerializableTimestampAssigner<Either<DeadLetter, T>> times =
        (record, kafkaTimestamp) ->
            // A dead letter has no event time; it must not move the watermark forward.
            record.isRight()
                ? events.extractTimestamp(record.right(), kafkaTimestamp)
                : Long.MIN_VALUE;
    if (caughtUpLag != null) {
      long lagMs = caughtUpLag.toMillis();
      return WatermarkStrategy.<Either<DeadLetter, T>>forGenerator(
              context ->
                  new CaughtUpWatermarks<>(
                      context.getInputActivityClock(), System::currentTimeMillis, lagMs))
          .withTimestampAssigner(times);
    }
    return WatermarkStrategy.<Either<DeadLetter, T>>forBoundedOutOfOrderness(outOfOrderness)
        .withTimestampAssigner(times)
        .withIdleness(idleness);
  }
}
