package dev.weir.cli.load;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaClients;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Produces records to weir's Kafka for the loaders: idempotent, acknowledged by the broker. */
public final class EventProducer implements AutoCloseable {

  private final KafkaProducer<byte[], byte[]> producer;
  private long sent;
  private volatile Exception failure;

  public EventProducer(WeirConfig config) {
    // Connected as the jobs are (a secured cluster too).
    Properties props = KafkaClients.clientProperties(config);
    props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.setProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  public void send(String topic, byte[] key, byte[] value) {
    producer.send(
        new ProducerRecord<>(topic, key, value),
        (metadata, error) -> {
          if (error != null && failure == null) {
            failure = error;
          }
        });
    sent++;
  }

  /** Waits until every record is acknowledged; fails if any was not. */
  public void flush() {
    producer.flush();
    if (failure != null) {
      throw new IllegalStateException("cannot produce: " + failure.getMessage(), failure);
    }
  }

  public long sent() {
    return sent;
  }

  @Override
  public void close() {
    producer.close();
  }
}
