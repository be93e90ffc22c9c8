package dev.weir.bench.support;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaClients;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** A benchmark's reader of a topic as weir's jobs read it: committed records only. */
public final class ReadCommitted {

  private ReadCommitted() {}

  /**
   * A read_committed consumer assigned every partition of {@code topic}, in no group and committing
   * nothing; the caller seeks where it starts.
   */
  public static KafkaConsumer<byte[], byte[]> consumer(WeirConfig config, String topic) {
    Properties props = KafkaClients.clientProperties(config);
    props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> partitions = new ArrayList<>();
    consumer
        .partitionsFor(topic)
        .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
    consumer.assign(partitions);
    return consumer;
  }

  /** The consumer from the end of its partitions as they are now, before anything is sent. */
  public static KafkaConsumer<byte[], byte[]> fromEnd(WeirConfig config, String topic) {
    KafkaConsumer<byte[], byte[]> consumer = consumer(config, topic);
    consumer.seekToEnd(consumer.assignment());
    consumer.assignment().forEach(consumer::position); // seekToEnd is lazy: fix the start now
    return consumer;
  }
}
