package dev.weir.common.dlq;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.KafkaSinks;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter path of one job: every record the job cannot process, from any of its inputs or
 * steps, is collected here, counted, and written to {@code weir.dlq} exactly once, with where it
 * came from, its raw bytes and the reason.
 */
public final class DeadLetters {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

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
   * The longest reason a dead letter carries, in characters (marker included): a longer one keeps
   * its beginning and says how much was cut. A reason is written for a person; thousands of schema
   * violations joined would make one of megabytes, which the DLQ would refuse.
   */
  public static final int MAX_REASON_CHARS = 4096;

  /**
   * The most bytes of a record's value (and of its key) a dead letter carries: the first ones, with
   * {@code raw_value_truncated} set and the reason saying how many bytes were cut. The whole record
   * stays at its source topic, partition and offset, which every dead letter names.
   */
  public static final int MAX_RAW_BYTES = 256 * 1024;

  /**
   * Room for the rest of a dead letter: job, topic (at most 249 characters), numbers, time, field
   * names.
   */
  private static final int ENVELOPE_BYTES = 16 * 1024;

  /**
   * A dead letter for a Kafka record. Its value and key are cut at {@code maxBytes} (the job's
   * record limit) or {@link #MAX_RAW_BYTES}, whichever is smaller, and the reason at {@link
   * #MAX_REASON_CHARS}, so that every dead letter fits the DLQ ({@link #maxDeadLetterBytes}).
   */
  public static DeadLetter of(
      String job, ConsumerRecord<byte[], byte[]> record, String reason, int maxBytes) {
    return letter(job, SourcePosition.of(record), reason, record.key(), record.value(), maxBytes);
  }

  /**
   * The largest dead letter any job writes, as weir.dlq JSON: a key and a value of {@link
   * #MAX_RAW_BYTES} in base64 (4/3), a reason of {@link #MAX_REASON_CHARS} each escaped in six
   * bytes, and the rest. Under 1 MB, Kafka's default record limit; the DLQ topic and its producer
   * take records this large.
   */
  public static int maxDeadLetterBytes() {
    return 2 * base64Length(MAX_RAW_BYTES) + 6 * MAX_REASON_CHARS + ENVELOPE_BYTES;
  }

  private static int base64Length(int bytes) {
    return (bytes + 2) / 3 * 4;
  }

  /**
   * A dead letter for an event that was valid on the wire but rejected by the job's rules: the
   * event as the job read it, at the position it was read from.
   */
  public static DeadLetter rejected(
      String job, SourcePosition source, byte[] value, String reason) {
    return letter(job, source, reason, null, value, MAX_RAW_BYTES);
  }

  private static DeadLetter letter(
      String job, SourcePosition source, String reason, byte[] key, byte[] value, int maxBytes) {
    int keep = Math.max(0, Math.min(maxBytes, MAX_RAW_BYTES));
    StringBuilder cut = new StringBuilder();
    if (value != null && value.length > keep) {
      cut.append(
          String.format(
              "raw value: first %d of %d bytes kept, %d more bytes",
              keep, value.length, value.length - keep));
    }
    if (key != null && key.length > keep) {
      cut.append(cut.length() == 0 ? "" : "; ")
          .append(
              String.format(
                  "raw key: first %d of %d bytes kept, %d more bytes",
                  keep, key.length, key.length - keep));
    }
    String marker = cut.length() == 0 ? "" : " [" + cut + " at " + source + "]";
    return new DeadLetter(
        job,
        source.topic,
        source.partition,
        source.offset,
        source.timestamp,
        boundedReason(reason, MAX_REASON_CHARS - marker.length()) + marker,
        key != null && key.length > keep ? Arrays.copyOf(key, keep) : key,
        value != null && value.length > keep ? Arrays.copyOf(value, keep) : value,
        value != null && value.length > keep ? Boolean.TRUE : null,
        Instant.now());
  }

  /**
   * {@code reason} if it has at most {@code max} characters, else its beginning and a marker that
   * says how many characters were cut, {@code max} in all (never a half of a surrogate pair).
   */
  static String boundedReason(String reason, int max) {
    if (reason == null || reason.isEmpty()) {
      reason = "(no reason given)";
    }
    if (reason.length() <= max) {
      return reason;
    }
    // The marker's digits count the characters cut, which depend on the marker's length: size it
    // for the whole reason's length, which is at least as many digits.
    int markerLength = String.format(CUT_MARKER, reason.length()).length();
    int end = Math.max(0, max - markerLength);
    if (end > 0 && Character.isHighSurrogate(reason.charAt(end - 1))) {
      end--;
    }
    return reason.substring(0, end) + String.format(CUT_MARKER, reason.length() - end);
  }

  private static final String CUT_MARKER = "… [reason cut: %d more characters]";

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
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(maxDeadLetterBytes()));
    producer.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    sinkTo(
        KafkaSinks.exactlyOnce(
            config,
            KafkaRecordSerializationSchema.<DeadLetter>builder()
                .setTopic(topic)
                .setKeySerializationSchema(d -> d.sourceTopic().getBytes(StandardCharsets.UTF_8))
                .setValueSerializationSchema(
                    new DeadLetterSerializer(topic, KafkaClients.clientProperties(config)))
                .build(),
            DeploymentNames.transactionalIdPrefix(config, job, "dlq"),
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

  /**
   * Fails the job for good, naming the topic, when the broker says the DLQ topic does not exist:
   * weir never drops a dead letter, and no restart can bring the topic back (weir's brokers do not
   * create topics on demand; a job's start does). Without this, a deleted DLQ topic took each
   * restart 60 s of waiting for its metadata, about 40 minutes in all at the default {@code
   * restart.max-attempts}. A broker that does not answer is another matter: it may come back, so
   * the job restarts as usual.
   */
  static void requireTopic(Properties client, String topic) {
    try (Admin admin = KafkaClients.admin(client)) {
      admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw new SuppressRestartsException(
            new IllegalStateException(
                String.format(
                    "the dead-letter topic %s does not exist, so this job cannot write the records"
                        + " it must set aside, and restarting cannot create it. Create the topic"
                        + " (starting any weir job does) and start the job again from its last"
                        + " checkpoint: it reads its input again from there, nothing is lost",
                    topic)));
      }
      LOG.warn("could not check the dead-letter topic {}: {}", topic, e.getCause().toString());
    } catch (TimeoutException e) {
      LOG.warn("could not check the dead-letter topic {} within 30 s", topic);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static final class DeadLetterSerializer implements SerializationSchema<DeadLetter> {
    private static final long serialVersionUID = 1L;
    private final EventCodec<DeadLetter> codec = EventCodec.of(EventSchema.DLQ, DeadLetter.class);
    private final String topic;
    private final Properties client;

    DeadLetterSerializer(String topic, Properties client) {
      this.topic = topic;
      this.client = client;
    }

    /** Runs each time the DLQ writer starts, so after every restart of the job too. */
    @Override
    public void open(InitializationContext context) {
      requireTopic(client, topic);
    }

    @Override
    public byte[] serialize(DeadLetter element) {
      byte[] json = codec.encode(element);
      if (json.length > maxDeadLetterBytes()) {
        // Cannot happen while letter() bounds every part; if it did, the producer would refuse
        // the record and the exactly-once sink fail the job at every restart.
        throw new IllegalStateException(
            String.format(
                "a dead letter of %s-%d@%d is %d bytes, over the %d that %s takes: a bug in"
                    + " DeadLetters' bounds (the job stops rather than lose it)",
                element.sourceTopic(),
                element.sourcePartition(),
                element.sourceOffset(),
                json.length,
                maxDeadLetterBytes(),
                topic));
      }
      return json;
    }
  }

  private static final class Splitter<T> extends ProcessFunction<Either<DeadLetter, T>, T> {
    private static final long serialVersionUID = 1L;
    private transient Counter deadLetters;

    @Override
    public void open(OpenContext openContext) {
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
