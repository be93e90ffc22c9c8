package dev.weir.common.dlq;

import dev.weir.schema.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Dead letters from a step that cannot hand them to the job's exactly-once DLQ sink (a sink writer
 * has no output), in the same topic and form: an idempotent producer, each letter durable once
 * {@link #flush} returns. At least once: a letter written before a crash is written again when the
 * job replays what led to it.
 */
public final class DeadLetterProducer implements AutoCloseable {

  private final KafkaProducer<byte[], byte[]> producer;
  private final DeadLetters.DeadLetterSerializer serializer;
  private final String topic;
  private final List<Future<RecordMetadata>> unflushed = new ArrayList<>();

  /**
   * @param client how the job's clients connect ({@code KafkaClients.clientProperties})
   */
  public DeadLetterProducer(Properties client, String topic) {
    Properties props = new Properties();
    props.putAll(client);
    props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.setProperty(
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(DeadLetters.maxDeadLetterBytes()));
    props.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    this.topic = topic;
    this.serializer = new DeadLetters.DeadLetterSerializer(topic, client);
    DeadLetters.requireTopic(client, topic);
    this.producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Sends a letter, keyed by its source as the DLQ sink keys it. */
  public synchronized void send(DeadLetter letter) {
    unflushed.add(
        producer.send(
            new ProducerRecord<>(
                topic,
                letter.sourceTopic().getBytes(StandardCharsets.UTF_8),
                serializer.serialize(letter))));
  }

  /** Returns once every letter sent is in the topic; throws if the broker refused one. */
  public synchronized void flush() throws Exception {
    producer.flush();
    try {
      for (Future<RecordMetadata> f : unflushed) {
        f.get();
      }
    } finally {
      unflushed.clear();
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
