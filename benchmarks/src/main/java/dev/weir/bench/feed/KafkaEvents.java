package dev.weir.bench.feed;

import dev.weir.bench.support.ReadCommitted;
import dev.weir.common.config.WeirConfig;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.InvalidEventException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** The topic's events in partition order per partition, decoded as the job decodes them. */
final class KafkaEvents implements Iterable<ActivityEvent>, AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final int total;
  private final EventCodec<ActivityEvent> codec;
  private final AtomicLong consumed;

  KafkaEvents(
      WeirConfig config,
      String topic,
      int total,
      EventCodec<ActivityEvent> codec,
      AtomicLong consumed) {
    consumer = ReadCommitted.consumer(config, topic);
    consumer.seekToBeginning(consumer.assignment());
    this.total = total;
    this.codec = codec;
    this.consumed = consumed;
  }

  @Override
  public Iterator<ActivityEvent> iterator() {
    return new Iterator<>() {
      private Iterator<ConsumerRecord<byte[], byte[]>> batch =
          List.<ConsumerRecord<byte[], byte[]>>of().iterator();
      private long read;

      @Override
      public boolean hasNext() {
        return read < total;
      }

      @Override
      public ActivityEvent next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        while (!batch.hasNext()) {
          batch = consumer.poll(Duration.ofMillis(500)).iterator();
        }
        read++;
        consumed.incrementAndGet();
        try {
          return codec.decode(batch.next().value());
        } catch (InvalidEventException e) {
          throw new IllegalStateException("the generated input does not decode", e);
        }
      }
    };
  }

  @Override
  public void close() {
    consumer.close();
  }
}
