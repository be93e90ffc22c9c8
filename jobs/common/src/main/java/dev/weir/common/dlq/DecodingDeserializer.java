package dev.weir.common.dlq;

import dev.weir.common.kafka.Conversion;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import dev.weir.schema.InvalidEventException;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decodes a Kafka record into an event and what the job makes of it, or into a {@link DeadLetter}
 * that says where it came from and why it was rejected. Never throws for bad input: a job must not
 * restart because of a record. Every rejection happens here, where the record's raw bytes and
 * offset are at hand for the dead letter.
 *
 * @param <E> the event the topic's schema describes
 * @param <T> what the job reads it as
 */
public final class DecodingDeserializer<E, T>
    implements KafkaRecordDeserializationSchema<Either<DeadLetter, T>> {

  private static final long serialVersionUID = 1L;

  private final String job;
  private final EventCodec<E> codec;
  private final TypeInformation<T> type;
  private final boolean skipTombstones;
  private final Conversion<E, T> conversion;

  public DecodingDeserializer(
      String job,
      EventCodec<E> codec,
      TypeInformation<T> type,
      boolean skipTombstones,
      Conversion<E, T> conversion) {
    this.job = job;
    this.codec = codec;
    this.type = type;
    this.skipTombstones = skipTombstones;
    this.conversion = conversion;
  }

  @Override
  public void deserialize(
      ConsumerRecord<byte[], byte[]> record, Collector<Either<DeadLetter, T>> out)
      throws IOException {
    if (record.value() == null && skipTombstones) {
      // A Debezium tombstone follows a delete so that compaction can drop the key: nothing to do.
      return;
    }
    try {
      T value = conversion.convert(codec.decode(record.value()), record);
      if (value != null) {
        out.collect(Either.Right(value));
      }
    } catch (InvalidEventException e) {
      out.collect(Either.Left(DeadLetters.of(job, record, e.getMessage(), codec.maxBytes())));
    } catch (RuntimeException e) {
      out.collect(
          Either.Left(DeadLetters.of(job, record, "cannot decode: " + e, codec.maxBytes())));
    }
  }

  @Override
  public TypeInformation<Either<DeadLetter, T>> getProducedType() {
    return new EitherTypeInfo<>(TypeInformation.of(DeadLetter.class), type);
  }
}
