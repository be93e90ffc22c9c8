package dev.weir.common.kafka;

import dev.weir.schema.InvalidEventException;
import java.io.Serializable;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a valid event read from a topic becomes: a value, null to skip it, or an {@link
 * InvalidEventException} with the reason it goes to the DLQ.
 *
 * @param <E> the event the topic's schema describes
 * @param <T> what the job reads it as
 */
@FunctionalInterface
public interface Conversion<E, T> extends Serializable {
  T convert(E event) throws InvalidEventException;

  /** The same, for a conversion that keeps where the event was read. */
  default T convert(E event, ConsumerRecord<byte[], byte[]> record) throws InvalidEventException {
    return convert(event);
  }

  static <E> Conversion<E, E> none() {
    return event -> event;
  }
}
