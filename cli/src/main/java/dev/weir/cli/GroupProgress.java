package dev.weir.cli;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaClients;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How far a job's consumer group is from the ends of the topics it reads: the records it has still
 * to read. A job commits its offsets when a checkpoint completes, so a group with none left has
 * written out everything the topics held when it was asked.
 */
final class GroupProgress implements AutoCloseable {

  /** A gap this small is read to tell records from transaction markers. */
  private static final long PROBED_GAP = 1000;

  private final Admin admin;
  private final KafkaConsumer<byte[], byte[]> probe;

  GroupProgress(WeirConfig config) {
    this.admin = KafkaClients.admin(config);
    Properties p = KafkaClients.clientProperties(config);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    this.probe = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * The records of {@code topics} that {@code group} has not read yet. An exactly-once writer ends
   * each transaction with a marker a reader never receives, and a group's offset stops before it:
   * where little is left, the rest is read to count only records.
   */
  long behind(String group, Collection<String> topics) throws Exception {
    Map<TopicPartition, Long> ends = ends(topics);
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    long behind = 0;
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      OffsetAndMetadata at = committed.get(end.getKey());
      long from = at == null ? 0 : at.offset();
      long gap = end.getValue() - from;
      if (gap > 0) {
        behind += gap <= PROBED_GAP ? records(end.getKey(), from, end.getValue()) : gap;
      }
    }
    return behind;
  }

  /** The records {@code topic} holds for a committed reader (0 if it does not exist yet). */
  long records(String topic) throws Exception {
    Map<TopicPartition, Long> ends;
    try {
      ends = ends(List.of(topic));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return 0;
      }
      throw e;
    }
    long records = 0;
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      records += records(end.getKey(), 0, end.getValue());
    }
    return records;
  }

  /** Deletes the group (a job's offsets, once the job is gone for good). */
  void delete(String group) throws Exception {
    try {
      admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof GroupIdNotFoundException)) {
        throw e;
      }
    }
  }

  private Map<TopicPartition, Long> ends(Collection<String> topics)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (var topic :
        admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
      topic
          .partitions()
          .forEach(
              p ->
                  latest.put(new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest()));
    }
    Map<TopicPartition, Long> ends = new HashMap<>();
    admin
        .listOffsets(latest)
        .all()
        .get(30, TimeUnit.SECONDS)
        .forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  /** The records a committed reader receives between two offsets of a partition. */
  private long records(TopicPartition partition, long from, long to) {
    probe.assign(List.of(partition));
    probe.seek(partition, from);
    long records = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (probe.position(partition) < to && System.nanoTime() < deadline) {
      for (var r : probe.poll(Duration.ofMillis(200))) {
        if (r.offset() < to) {
          records++;
        }
      }
    }
    // Not read to the end in time (an open transaction): what is left counts as unread.
    return records + Math.max(0, to - probe.position(partition));
  }

  @Override
  public void close() {
    probe.close();
    admin.close();
  }
}
