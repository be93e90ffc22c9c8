package dev.weir.common.kafka;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.time.Duration;
import java.util.Properties;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The one way weir's jobs write to Kafka: exactly once, in Kafka transactions committed on
 * checkpoints (the DLQ, tracking.enriched, the capture's change topics).
 */
public final class KafkaSinks {

  private KafkaSinks() {}

  /** An exactly-once Kafka sink (Kafka transactions committed on checkpoints). */
  public static <T> KafkaSink<T> exactlyOnce(
      WeirConfig config,
      KafkaRecordSerializationSchema<T> serializer,
      String transactionalIdPrefix) {
    return exactlyOnce(config, serializer, transactionalIdPrefix, new Properties());
  }

  /** The same, with more producer settings. */
  public static <T> KafkaSink<T> exactlyOnce(
      WeirConfig config,
      KafkaRecordSerializationSchema<T> serializer,
      String transactionalIdPrefix,
      Properties producerSettings) {
    Properties producer = KafkaClients.clientProperties(config);
    producer.setProperty(
        ProducerConfig.MAX_BLOCK_MS_CONFIG,
        Long.toString(config.get(WeirOptions.KAFKA_PRODUCER_MAX_BLOCK).toMillis()));
    producer.setProperty(
        ProducerConfig.LINGER_MS_CONFIG,
        Long.toString(config.get(WeirOptions.KAFKA_PRODUCER_LINGER).toMillis()));
    producer.setProperty(
        ProducerConfig.BATCH_SIZE_CONFIG,
        Long.toString(config.get(WeirOptions.KAFKA_PRODUCER_BATCH_SIZE).getBytes()));
    producer.putAll(producerSettings);
    // Must outlast the longest checkpoint plus a restart; the broker's maximum is set to 1 h.
    producer.setProperty(
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
        Long.toString(Duration.ofMinutes(15).toMillis()));
    return KafkaSink.<T>builder()
        .setBootstrapServers(config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS))
        .setRecordSerializer(serializer)
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(transactionalIdPrefix)
        .setKafkaProducerConfig(producer)
        .build();
  }
}
