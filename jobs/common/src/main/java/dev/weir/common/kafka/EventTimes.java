package dev.weir.common.kafka;

import dev.weir.common.postgres.Timestamps;
import dev.weir.schema.InvalidEventException;
import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * Event times a job will store: years PostgreSQL and Elasticsearch both take. An ISO-8601 time of
 * year 0 is valid JSON Schema {@code date-time} but PostgreSQL refuses it, so a job that wrote it
 * would fail at every retry; such an event goes to the DLQ when it is read instead.
 */
public final class EventTimes {

  private EventTimes() {}

  /** The time of an event. */
  @FunctionalInterface
  public interface Time<T> extends Serializable {
    Instant of(T event);
  }

  /** A conversion that refuses an event whose time is not storable. */
  public static <T> Conversion<T, T> storable(Time<T> time) {
    return event -> {
      requireStorable(time.of(event));
      return event;
    };
  }

  static void requireStorable(Instant time) throws InvalidEventException {
    try {
      Timestamps.checkedYear(time.atOffset(ZoneOffset.UTC).getYear());
    } catch (IllegalArgumentException e) {
      throw new InvalidEventException(
          "event time "
              + time
              + ": "
              + e.getMessage()
              + ", the years PostgreSQL and Elasticsearch take");
    }
  }
}
