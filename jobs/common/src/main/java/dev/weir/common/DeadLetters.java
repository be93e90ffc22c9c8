package dev.weir.common;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.KafkaIo;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.common.metrics.WeirMetrics;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The dead-letter path of one job: every record the job cannot process, from any of its inputs or
 * steps, is collected here, counted, and written to {@code weir.dlq} exactly once, with where it
 * came from, its raw bytes and the reason.
 */
public final class DeadLetters {

  public static final OutputTag<DeadLetter> TAG =
      new OutputTag<>("dead-letters", TypeInformation.of(DeadLetter.class));

  private final String job;
  private final List<DataStream<DeadLetter>> streams = new ArrayList<>();

  public DeadLetters(String job) {
    this.job = job;
  }

  public String job() {
    return job;
  }

  /**
   * A dead letter for a Kafka record, its value cut at {@code maxBytes} (only a record over the
   * job's limit is that long; the whole record stays at its offset).
   */
  public static DeadLetter of(
      String job, ConsumerRecord<byte[], byte[]> record, String reason, int maxBytes) {
    byte[] value = record.value();
    boolean cut = value != null && value.length > maxBytes;
    return letter(
        job,
        SourcePosition.of(record),
        reason,
        record.key() != null && record.key().length > maxBytes
            ? Arrays.copyOf(record.key(), maxBytes)
            : record.key(),
        cut ? Arrays.copyOf(value, maxBytes) : value,
        cut ? Boolean.TRUE : null);
  }

  /**
   * The largest dead letter a job with this record limit writes: a value and a key of the limit,
   * base64 (4/3), and the rest. The DLQ topic and its producer take records this large.
   */
  public static int maxDeadLetterBytes(WeirConfig config) {
    long max = config.get(WeirOptions.RECORD_MAX_BYTES);
    return (int) Math.min(Integer.MAX_VALUE, 2 * (max * 4 / 3 + 4) + 64 * 1024);
  }

  /**
   * A dead letter for an event that was valid on the wire but rejected by the job's rules: the
   * event as the job read it, at the position it was read from.
   */
  public static DeadLetter rejected(
      String job, SourcePosition source, byte[] value, String reason) {
    return letter(job, source, reason, null, value, null);
  }

  private static DeadLetter letter(
      String job,
      SourcePosition source,
      String reason,
      byte[] key,
      byte[] value,
      Boolean valueTruncated) {
    return new DeadLetter(
        job,
        source.topic,
        source.partition,
        source.offset,
        source.timestamp,
        reason,
        key,
        value,
        valueTruncated,
        Instant.now());
  }

  /** Splits decoded records: valid ones continue, dead letters are collected and counted. */
  public <T> SingleOutputStreamOperator<T> split(
      DataStream<Either<DeadLetter, T>> decoded, TypeInformation<T> type, String uid) {
    SingleOutputStreamOperator<T> valid =
        decoded.process(new Splitter<T>()).returns(type).uid(uid).name("decode / dead letters");
    add(valid.getSideOutput(TAG));
    return valid;
  }

  /** Adds a stream of dead letters produced by a later step of the job. */
  public void add(DataStream<DeadLetter> deadLetters) {
    streams.add(deadLetters);
  }

  /** Writes every collected dead letter to the DLQ topic, exactly once. Call once, last. */
  public void sinkTo(WeirConfig config) {
    String topic = config.get(WeirOptions.DLQ_TOPIC);
    Properties producer = new Properties();
    producer.setProperty(
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(maxDeadLetterBytes(config)));
    producer.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    sinkTo(
        KafkaIo.exactlyOnceSink(
            config,
            KafkaRecordSerializationSchema.<DeadLetter>builder()
                .setTopic(topic)
                .setKeySerializationSchema(d -> d.sourceTopic().getBytes(StandardCharsets.UTF_8))
                .setValueSerializationSchema(new DeadLetterSerializer())
                .build(),
            KafkaIo.transactionalIdPrefix(config, job, "dlq"),
            producer));
  }

  /** Writes every collected dead letter to the given sink (tests use a collecting sink). */
  public void sinkTo(Sink<DeadLetter> sink) {
    if (streams.isEmpty()) {
      return;
    }
    DataStream<DeadLetter> all = streams.get(0);
    for (int i = 1; i < streams.size(); i++) {
      all = all.union(streams.get(i));
    }
    all.sinkTo(sink).uid(job + "-dlq-sink").name("weir.dlq");
  }

  private static final class DeadLetterSerializer
      implements org.apache.flink.api.common.serialization.SerializationSchema<DeadLetter> {
    private static final long serialVersionUID = 1L;
    private final EventCodec<DeadLetter> codec = EventCodec.of(EventSchema.DLQ, DeadLetter.class);

    @Override
    public byte[] serialize(DeadLetter element) {
      return codec.encode(element);
    }
  }

  private static final class Splitter<T> extends ProcessFunction<Either<DeadLetter, T>, T> {
    private static final long serialVersionUID = 1L;
    private transient Counter deadLetters;

    @Override
    public void open(org.apache.flink.api.common.functions.OpenContext openContext) {
      deadLetters = getRuntimeContext().getMetricGroup().counter(WeirMetrics.DEAD_LETTERS);
    }

    @Override
    public void processElement(Either<DeadLetter, T> value, Context ctx, Collector<T> out) {
      if (value.isRight()) {
        out.collect(value.right());
      } else {
        deadLetters.inc();
        ctx.output(TAG, value.left());
      }
    }
  }
}
