package dev.weir.common.kafka;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The one way weir's jobs read Kafka: only committed records ({@code read_committed}, so what an
 * exactly-once writer aborted is never seen), from the group's committed offsets on a fresh start
 * and from the checkpoint's on a restore.
 */
public final class KafkaSources {

  private KafkaSources() {}

  /** A source of {@code topic}, each record turned into a value by {@code deserializer}. */
  public static <T> KafkaSource<T> readCommitted(
      WeirConfig config,
      String topic,
      String groupId,
      KafkaRecordDeserializationSchema<T> deserializer) {
    return KafkaSource.<T>builder()
        .setBootstrapServers(config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS))
        .setTopics(topic)
        .setGroupId(groupId)
        .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
        .setProperties(KafkaClients.clientProperties(config))
        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
        .setProperty("partition.discovery.interval.ms", "30000")
        .setDeserializer(deserializer)
        .build();
  }
}
