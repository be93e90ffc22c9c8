package dev.weir.common.dlq;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.Conversion;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.KafkaSources;
import dev.weir.common.kafka.Watermarks;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Either;

/**
 * A job's inputs: topics of JSON events, decoded at the source, the valid ones continuing with
 * their event times and the rest going to the job's dead letters with their raw records.
 */
public final class DecodedTopics {

  private DecodedTopics() {}

  /**
   * Reads a topic of JSON events: valid ones continue downstream with event-time timestamps (if an
   * assigner is given), invalid ones go to {@code dlq}. Watermarks are generated per partition at
   * the source.
   *
   * @param uid the stable operator uid prefix of this input (source and decoder)
   */
  public static <T> SingleOutputStreamOperator<T> read(
      StreamExecutionEnvironment env,
      WeirConfig config,
      DeadLetters dlq,
      String topic,
      EventCodec<T> codec,
      TypeInformation<T> type,
      Watermarks<T> watermarks,
      String uid) {
    return read(
        env,
        config,
        dlq,
        topic,
        codec,
        watermarks.check(config.get(WeirOptions.EVENT_TIME_MAX_AHEAD)),
        type,
        watermarks,
        uid);
  }

  /**
   * Reads a topic of JSON events, each converted to what the job reads them as; an event the
   * conversion refuses goes to {@code dlq} with its raw record, like one that does not decode.
   */
  public static <E, T> SingleOutputStreamOperator<T> read(
      StreamExecutionEnvironment env,
      WeirConfig config,
      DeadLetters dlq,
      String topic,
      EventCodec<E> codec,
      Conversion<E, T> conversion,
      TypeInformation<T> type,
      Watermarks<T> watermarks,
      String uid) {
    KafkaSource<Either<DeadLetter, T>> source =
        KafkaSources.readCommitted(
            config,
            topic,
            DeploymentNames.groupId(config, dlq.job()),
            new DecodingDeserializer<>(
                dlq.job(),
                codec.withMaxBytes(config.get(WeirOptions.RECORD_MAX_BYTES)),
                type,
                codec.schema().hasTombstones(),
                conversion));
    return dlq.split(
        env.fromSource(source, watermarks.strategy(), topic).uid(uid + "-source").name(topic),
        type,
        uid + "-decode");
  }
}
