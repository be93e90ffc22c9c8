package dev.weir.common.kafka;

import dev.weir.common.DeadLetters;
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
 * Decodes a Kafka record into an event, or into a {@link DeadLetter} that says where it came from
 * and why it was rejected. Never throws for bad input: a job must not restart because of a record.
 */
public final class DecodingDeserializer<T>
    implements KafkaRecordDeserializationSchema<Either<DeadLetter, T>> {

  private static final long serialVersionUID = 1L;

  private final String job;
  private final EventCodec<T> codec;
  private final TypeInformation<T> type;
  private final boolean skipTombstones;

  public DecodingDeserializer(
      String job, EventCodec<T> codec, TypeInformation<T> type, boolean skipTombstones) {
    this.job = job;
    this.codec = codec;
    this.type = type;
    this.skipTombstones = skipTombstones;
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
      out.collect(Either.Right(codec.decode(record.value())));
    } catch (InvalidEventException e) {
      out.collect(Either.Left(DeadLetters.of(job, record, e.getMessage())));
    } catch (RuntimeException e) {
      out.collect(Either.Left(DeadLetters.of(job, record, "cannot decode: " + e)));
    }
  }

  @Override
  public TypeInformation<Either<DeadLetter, T>> getProducedType() {
    return new EitherTypeInfo<>(TypeInformation.of(DeadLetter.class), type);
  }
}
