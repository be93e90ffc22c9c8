package dev.weir.it;

import dev.weir.common.kafka.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Producing to and reading back from the test run's real Kafka. */
public final class Kafka {

  private Kafka() {}

  /** An admin client of the run's broker (close it). */
  public static Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            LocalStackExtension.connections().kafkaBootstrapServers()));
  }

  public static void produce(String topic, List<String> values) {
    produce(topic, null, values);
  }

  /**
   * To one partition (or the producer's choice when null), in order; the topic is created first if
   * it is missing, so that no record races the broker opening it (see {@link
   * KafkaTopics#createTopicsIfMissing}).
   */
  public static void produce(String topic, Integer partition, List<String> values) {
    produce(topic, partition, null, values);
  }

  /**
   * With a key (a compacted topic takes no record without one), to the key's partition, in order.
   */
  public static void produceKeyed(String topic, String key, List<String> values) {
    produce(topic, null, key, values);
  }

  private static void produce(String topic, Integer partition, String key, List<String> values) {
    KafkaTopics.createTopicsIfMissing(LocalStackExtension.config(), List.of(topic), 2);
    Properties props = new Properties();
    props.setProperty(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        LocalStackExtension.connections().kafkaBootstrapServers());
    props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      sendAll(
          producer,
          values.stream()
              .map(
                  value ->
                      new ProducerRecord<byte[], byte[]>(
                          topic,
                          partition,
                          key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                          value == null ? null : value.getBytes(StandardCharsets.UTF_8)))
              .toList());
    }
  }

  /**
   * A producer that waits out a broker restart instead of failing (up to five minutes), and writes
   * a record it retried only once (idempotent). Close it.
   */
  public static KafkaProducer<byte[], byte[]> durableProducer() {
    Properties props = new Properties();
    props.setProperty(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        LocalStackExtension.connections().kafkaBootstrapServers());
    props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.setProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
    props.setProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, "300000");
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /**
   * Sends the records and waits until the broker has them all. A record the producer gave up on
   * fails the caller with an {@link AssertionError}, which input loops do not retry: re-sending the
   * batch would duplicate the records that did go through.
   */
  public static void sendAll(
      KafkaProducer<byte[], byte[]> producer, List<ProducerRecord<byte[], byte[]>> records) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    records.forEach(r -> sent.add(producer.send(r)));
    producer.flush();
    for (int i = 0; i < sent.size(); i++) {
      try {
        sent.get(i).get();
      } catch (ExecutionException e) {
        throw new AssertionError(
            "Kafka did not take record " + (i + 1) + " of " + sent.size() + ": " + e.getCause(),
            e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while sending to Kafka", e);
      }
    }
  }

  /**
   * Reads committed records from the start of the topic until {@code done} holds for what was read,
   * or the timeout passes; returns what was read either way.
   */
  public static List<ConsumerRecord<byte[], byte[]>> readCommitted(
      String topic, Duration timeout, Predicate<List<ConsumerRecord<byte[], byte[]>>> done) {
    Properties props = new Properties();
    props.setProperty(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        LocalStackExtension.connections().kafkaBootstrapServers());
    props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID());
    props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline && !done.test(records)) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  /**
   * Whether {@code group} has committed the end offset of every partition of {@code topics} (a
   * topic written in transactions ends on a commit marker, which is never consumed).
   */
  public static boolean consumedToTheEnd(String group, List<String> topics) throws Exception {
    Map<TopicPartition, Long> ends = endOffsets(topics);
    try (Admin admin = admin()) {
      var committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      for (var end : ends.entrySet()) {
        var at = committed.get(end.getKey());
        if (end.getValue() > 0 && (at == null || at.offset() < end.getValue() - 1)) {
          return false;
        }
      }
      return true;
    }
  }

  /** The end offset of every partition of {@code topics}. */
  public static Map<TopicPartition, Long> endOffsets(List<String> topics) throws Exception {
    try (Admin admin = admin()) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (var topic : admin.describeTopics(topics).allTopicNames().get().values()) {
        topic
            .partitions()
            .forEach(
                p ->
                    latest.put(
                        new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest()));
      }
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin.listOffsets(latest).all().get().forEach((p, end) -> ends.put(p, end.offset()));
      return ends;
    }
  }

  /** Deletes a consumer group, once its members have left (a cancelled job's take a moment). */
  public static void deleteGroup(String group, Duration wait) throws Exception {
    try (Admin admin = admin()) {
      Await.until(
          wait,
          () -> {
            try {
              admin.deleteConsumerGroups(List.of(group)).all().get();
              return true;
            } catch (Exception stillActive) {
              return false;
            }
          },
          deleted -> deleted);
    }
  }
}
