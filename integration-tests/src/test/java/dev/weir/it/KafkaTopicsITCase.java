package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.KafkaTopics;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalStackExtension.class)
class KafkaTopicsITCase {

  private static final int TOPICS = 100;
  private static final int PARTITIONS = 2;
  private static final int RECORDS_PER_PARTITION = 500;

  /**
   * An idempotent producer with several requests in flight that writes to a partition before its
   * broker has opened it can lose records for good (KAFKA-15591: the first request fails with
   * NOT_LEADER_OR_FOLLOWER, a later one is appended, and every retry of the first is then out of
   * order until it expires). A topic {@code createTopicsIfMissing} returned must take records at
   * once.
   */
  @Test
  void aCreatedTopicTakesEveryRecordSentTheMomentItExists() throws Exception {
    WeirConfig config = LocalStackExtension.config();
    String run = UUID.randomUUID().toString().substring(0, 8);
    Properties props = KafkaClients.clientProperties(config);
    props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "0");
    props.setProperty(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    props.setProperty(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    props.setProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "15000");
    List<String> topics = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int t = 0; t < TOPICS; t++) {
        String topic = "it.topics." + run + "." + t;
        topics.add(topic);
        KafkaTopics.createTopicsIfMissing(config, List.of(topic), PARTITIONS);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
          for (int p = 0; p < PARTITIONS; p++) {
            records.add(new ProducerRecord<>(topic, p, null, new byte[] {(byte) i}));
          }
        }
        Kafka.sendAll(producer, records);
        assertThat(KafkaTopics.endOffsets(config, topic))
            .as("records in %s", topic)
            .isEqualTo((long) PARTITIONS * RECORDS_PER_PARTITION);
      }
    } finally {
      KafkaTopics.deleteTopics(config, topics);
    }
  }
}
