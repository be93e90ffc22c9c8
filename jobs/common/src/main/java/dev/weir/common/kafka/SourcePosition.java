package dev.weir.common.kafka;

import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Where a record was read: for a dead letter raised after decoding (an event valid on the wire that
 * the job's rules refuse), so that it still names the record it came from.
 */
public class SourcePosition {
  public String topic;
  public int partition;
  public long offset;
  public Long timestamp; // null when the record has none

  public SourcePosition() {}

  public SourcePosition(String topic, int partition, long offset, Long timestamp) {
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.timestamp = timestamp;
  }

  public static SourcePosition of(ConsumerRecord<?, ?> record) {
    return new SourcePosition(
        record.topic(),
        record.partition(),
        record.offset(),
        record.timestamp() >= 0 ? record.timestamp() : null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SourcePosition p
        && topic.equals(p.topic)
        && partition == p.partition
        && offset == p.offset
        && Objects.equals(timestamp, p.timestamp);
  }

  @Override
  public int hashCode() {
    return Objects.hash(topic, partition, offset, timestamp);
  }

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset;
  }
}
