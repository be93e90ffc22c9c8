package dev.weir.bench.identity;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.PacedInput;
import dev.weir.bench.support.ReadCommitted;
import dev.weir.bench.support.SourceProgress;
import dev.weir.bench.support.SteadyState;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.dlq.DecodedTopics;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.EventTimes;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.KafkaSinks;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.kafka.Watermarks;
import dev.weir.identity.Enricher;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityKey;
import dev.weir.identity.IdentityOptions;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.Json;
import dev.weir.schema.TrackingEvent;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.TopicConfig;

/**
 * identity at steady state, from Kafka to Kafka, as deployed. The tracking topic (and the identity
 * events the job resolves) are filled before any clock starts; then each side reads the whole
 * tracking topic from its beginning, one after the other, on the same machine:
 *
 * <ol>
 *   <li>the decode limit: a Flink job that reads the topic, decodes and validates every event as
 *       the job does ({@link DecodedTopics#read}) and discards it;
 *   <li>the exactly-once pass-through limit: a Flink job that writes every record unchanged to
 *       another topic through the same exactly-once Kafka sink ({@link KafkaSinks#exactlyOnce}),
 *       checkpointing at the same interval;
 *   <li>the keyed-state floor: the decoded events keyed as the job keys them, each one's cached id
 *       read from RocksDB (written on a key's first event), emitted with it through the job's
 *       exactly-once sink ({@link CachedIdFloor}): what an enrichment from keyed state costs at
 *       least, without the identity table, lookups, writes or the identity events;
 *   <li>weir: {@link IdentityJob} itself, RocksDB state, checkpoints at the deployed interval, its
 *       exactly-once {@code tracking.enriched} sink and its PostgreSQL identity table.
 * </ol>
 *
 * <p>Rates are read over the steady window ({@link SteadyState}); a first, unmeasured pass of each
 * side's job warms this JVM's JIT for its code. Once a Kafka-to-Kafka side has read the whole
 * topic, it gets a paced live input for its end-to-end latency ({@link #latency}).
 */
public final class IdentityThroughputBenchmark {

  static final String PROJECT = "bench";

  /** Events per second of the paced live input the latencies are measured on. */
  static final int LATENCY_RATE = 2_000;

  /** End-to-end latencies of one side, in milliseconds, from the event's send time. */
  public record Latency(
      long events, long appendP50, long appendP99, long visibleP50, long visibleP99) {}

  /** Every side of one run. */
  public record Report(
      long events,
      int partitions,
      int parallelism,
      double repeat,
      double meanBytes,
      long distinctIds,
      long identityEvents,
      Duration checkpointInterval,
      SteadyState.Side decode,
      SteadyState.Side passThrough,
      SteadyState.Side floor,
      SteadyState.Side weir,
      SteadyState.Side weirKafkaDefaults,
      double hitRatio,
      Latency passThroughLatency,
      Latency weirLatency,
      int latencySeconds) {

    public double ofPassThrough() {
      return weir.eventsPerSecond() / passThrough.eventsPerSecond();
    }

    double ofDecode() {
      return weir.eventsPerSecond() / decode.eventsPerSecond();
    }

    public double perJvmCpuSecond() {
      return weir.eventsPerJvmCpuSecond();
    }
  }

  private IdentityThroughputBenchmark() {}

  public static Report run(
      LocalStack stack,
      long events,
      double repeat,
      int partitions,
      int parallelism,
      int latencySeconds)
      throws Exception {
    Connections connections = stack.up();
    String run = Long.toString(System.currentTimeMillis());
    WeirConfig base =
        WeirConfig.from(Map.of(), connections.environment())
            .with(WeirOptions.PARALLELISM, parallelism);
    String tracking = "bench.tracking.steady." + run;
    String identity = "bench.identity.steady." + run;
    String passOut = "bench.tracking.passthrough." + run;
    String enriched = "bench.tracking.enriched." + run;
    String floorOut = "bench.tracking.floor." + run;
    String enrichedDefaults = "bench.tracking.enriched-kafka-defaults." + run;
    String warmOut = "bench.tracking.warm-up." + run;
    KafkaTopics.createTopicsIfMissing(base, List.of(tracking, identity), partitions);
    createLogAppendTimeTopics(
        base, List.of(passOut, floorOut, enriched, enrichedDefaults, warmOut), partitions);
    try {

      TrackingGenerator input = new TrackingGenerator(repeat);
      Preloaded preloaded = preload(base, tracking, identity, input, events);
      EventCodec<TrackingEvent> codec =
          EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class);

      System.out.println("warming up: the decode-and-discard job over the whole topic");
      SteadyState.measureJob(
          stack, "warm-up", tracking, events, () -> startDecode(base, tracking, codec, "warm"));
      SteadyState.Side decode =
          SteadyState.measureJob(
              stack,
              "decode, validate, discard",
              tracking,
              events,
              () -> startDecode(base, tracking, codec, "decode"));

      // Each side's own code warmed the same way, by a first pass of its job (into an output topic
      // of its own), as activity-feed's benchmark warms weir's: warmed by the decode job alone, the
      // JIT compiler would still be compiling the rest of each side's code inside its window.
      SteadyState.measureJob(
          stack,
          "pass-through warm-up",
          tracking,
          events,
          () -> startPassThrough(base, tracking, warmOut, run + "-warm"));
      AtomicReference<Latency> passLatency = new AtomicReference<>();
      SteadyState.Side passThrough =
          SteadyState.measureJob(
              stack,
              "exactly-once pass-through",
              tracking,
              events,
              () -> startPassThrough(base, tracking, passOut, run),
              job ->
                  passLatency.set(
                      afterAll(base, input, tracking, passOut, events, latencySeconds, "pass")));

      SteadyState.measureJob(
          stack,
          "keyed-state floor warm-up",
          tracking,
          events,
          () -> startFloor(base, tracking, warmOut, codec, run + "-warm"));
      SteadyState.Side floor =
          SteadyState.measureJob(
              stack,
              "keyed-state floor",
              tracking,
              events,
              () -> startFloor(base, tracking, floorOut, codec, run));

      WeirConfig warmDb =
          weirDatabase(stack, connections, parallelism, run + "-warm", tracking, identity)
              .with(IdentityOptions.ENRICHED_TOPIC, warmOut);
      SteadyState.measureJob(
          stack,
          "weir identity warm-up",
          tracking,
          events,
          () ->
              JobRunner.start(new IdentityJob(), BenchEnvironment.miniClusterAsDeployed(), warmDb));
      WeirConfig weirDb = weirDatabase(stack, connections, parallelism, run, tracking, identity);
      AtomicReference<Latency> weirLatency = new AtomicReference<>();
      double[] hitRatio = {Double.NaN};
      SteadyState.Side weir =
          SteadyState.measureJob(
              stack,
              "weir identity",
              tracking,
              events,
              () ->
                  JobRunner.start(
                      new IdentityJob(),
                      BenchEnvironment.miniClusterAsDeployed(),
                      weirDb.with(IdentityOptions.ENRICHED_TOPIC, enriched)),
              job -> {
                long hits = SourceProgress.counted("weirCacheHits");
                long misses = SourceProgress.counted("weirCacheMisses");
                hitRatio[0] = (double) hits / Math.max(1, hits + misses);
                weirLatency.set(
                    afterAll(base, input, tracking, enriched, events, latencySeconds, "weir"));
              });
      // The same job with Kafka 3.9's producer defaults (no linger, 16 KiB batches): what weir's
      // kafka.producer.linger and kafka.producer.batch-size save, measured in the same run.
      WeirConfig kafkaDefaults =
          weirDatabase(stack, connections, parallelism, run + "-kafka-defaults", tracking, identity)
              .with(IdentityOptions.ENRICHED_TOPIC, enrichedDefaults)
              .with(WeirOptions.KAFKA_PRODUCER_LINGER, "0 ms")
              .with(WeirOptions.KAFKA_PRODUCER_BATCH_SIZE, "16kb");
      SteadyState.Side weirKafkaDefaults =
          SteadyState.measureJob(
              stack,
              "weir identity, Kafka's producer defaults",
              tracking,
              events,
              () ->
                  JobRunner.start(
                      new IdentityJob(), BenchEnvironment.miniClusterAsDeployed(), kafkaDefaults));
      return new Report(
          events,
          partitions,
          parallelism,
          repeat,
          preloaded.meanBytes(),
          preloaded.distinctIds(),
          preloaded.identityEvents(),
          base.get(WeirOptions.CHECKPOINT_INTERVAL),
          decode,
          passThrough,
          floor,
          weir,
          weirKafkaDefaults,
          hitRatio[0],
          passLatency.get(),
          weirLatency.get(),
          latencySeconds);
    } finally {
      // Several million events in these topics are gigabytes: not left behind for the next run.
      KafkaTopics.deleteTopics(
          base,
          List.of(tracking, identity, passOut, enriched, floorOut, enrichedDefaults, warmOut));
    }
  }

  /** A fresh identity table for one run of the job, reading the run's topics. */
  private static WeirConfig weirDatabase(
      LocalStack stack,
      Connections connections,
      int parallelism,
      String run,
      String tracking,
      String identity) {
    return BenchEnvironment.freshDatabase(stack, connections, "bench_identity_steady")
        .with(WeirOptions.PARALLELISM, parallelism)
        .with(WeirOptions.DEPLOYMENT_ID, "bench-" + run)
        .with(IdentityOptions.TRACKING_TOPIC, tracking)
        .with(IdentityOptions.IDENTITY_TOPIC, identity);
  }

  private record Preloaded(double meanBytes, long distinctIds, long identityEvents) {}

  /** The input, written before any clock starts: tracking events keyed by distinct id. */
  private static Preloaded preload(
      WeirConfig config, String tracking, String identity, TrackingGenerator input, long events) {
    EventCodec<TrackingEvent> codec =
        EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class);
    EventCodec<IdentityEvent> identityCodec =
        EventCodec.of(EventSchema.IDENTITY_EVENTS, IdentityEvent.class);
    long start = System.nanoTime();
    long bytes = 0;
    try (EventProducer producer = new EventProducer(config)) {
      for (long i = 0; i < events; i++) {
        TrackingEvent e = input.next("e", null);
        byte[] value = codec.encode(e);
        bytes += value.length;
        producer.send(tracking, e.distinctId().getBytes(StandardCharsets.UTF_8), value);
      }
      for (IdentityEvent e : input.identifies()) {
        producer.send(identity, PROJECT.getBytes(StandardCharsets.UTF_8), identityCodec.encode(e));
      }
      producer.flush();
    }
    System.out.printf(
        "%,d tracking events (%,d distinct ids, %.0f bytes each on average) and %,d identity"
            + " events written in %.1f s%n",
        events,
        input.distinctIds(),
        (double) bytes / events,
        input.identifies().size(),
        (System.nanoTime() - start) / 1e9);
    return new Preloaded((double) bytes / events, input.distinctIds(), input.identifies().size());
  }

  /**
   * Output topics whose records carry the time the broker appended them (LogAppendTime), for the
   * latency from an event's send time to its output being written.
   */
  private static void createLogAppendTimeTopics(
      WeirConfig config, List<String> topics, int partitions) throws Exception {
    try (Admin admin = KafkaClients.admin(config)) {
      List<NewTopic> created = new ArrayList<>();
      for (String topic : topics) {
        created.add(
            new NewTopic(topic, partitions, (short) 1)
                .configs(Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime")));
      }
      admin.createTopics(created).all().get();
    }
    KafkaTopics.createTopicsIfMissing(config, topics, partitions); // waits for their leaders
  }

  private static JobClient startDecode(
      WeirConfig config, String topic, EventCodec<TrackingEvent> codec, String name)
      throws Exception {
    return SteadyState.startDiscarding(
        config, name, (env, dlq) -> readAsTheJob(env, dlq, config, topic, codec, name));
  }

  /** The topic read and decoded exactly as {@link IdentityJob} reads its tracking events. */
  private static DataStream<TrackingEvent> readAsTheJob(
      StreamExecutionEnvironment env,
      DeadLetters dlq,
      WeirConfig config,
      String topic,
      EventCodec<TrackingEvent> codec,
      String name) {
    return DecodedTopics.read(
        env,
        config,
        dlq,
        topic,
        codec,
        EventTimes.storable(TrackingEvent::time),
        Enricher.EVENT,
        Watermarks.none(),
        "bench-" + name);
  }

  private static JobClient startPassThrough(WeirConfig config, String in, String out, String run)
      throws Exception {
    StreamExecutionEnvironment env = BenchEnvironment.miniClusterAsDeployed();
    JobRunner.configure(env, config);
    KafkaSource<byte[][]> source =
        KafkaSource.<byte[][]>builder()
            .setBootstrapServers(config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS))
            .setTopics(in)
            .setGroupId("bench-pass-" + run)
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setProperties(KafkaClients.clientProperties(config))
            .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
            .setDeserializer(new KeyAndValue())
            .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), in)
        .uid("bench-pass-source")
        .name(in)
        .sinkTo(
            KafkaSinks.exactlyOnce(
                config,
                KafkaRecordSerializationSchema.<byte[][]>builder()
                    .setTopic(out)
                    .setKeySerializationSchema(r -> r[0])
                    .setValueSerializationSchema(r -> r[1])
                    .build(),
                "bench-pass-" + run))
        .uid("bench-pass-sink")
        .name(out);
    return env.executeAsync("bench exactly-once pass-through");
  }

  private static JobClient startFloor(
      WeirConfig config, String in, String out, EventCodec<TrackingEvent> codec, String run)
      throws Exception {
    StreamExecutionEnvironment env = BenchEnvironment.miniClusterAsDeployed();
    JobRunner.configure(env, config);
    env.getConfig().enableObjectReuse(); // as IdentityJob
    readAsTheJob(env, new DeadLetters("bench-floor-" + run), config, in, codec, "floor")
        .keyBy(
            e -> new IdentityKey(e.projectId(), e.distinctId()),
            TypeInformation.of(IdentityKey.class))
        .process(new CachedIdFloor())
        .returns(Enricher.ENRICHED)
        .uid("bench-floor-cached-id")
        .name("cached id")
        .sinkTo(IdentityJob.enrichedSink(config.with(IdentityOptions.ENRICHED_TOPIC, out)))
        .uid("bench-floor-sink")
        .name(out);
    return env.executeAsync("bench keyed-state floor");
  }

  /** Once the side has read the whole pre-loaded topic: its latency on a paced live input. */
  private static Latency afterAll(
      WeirConfig config,
      TrackingGenerator input,
      String in,
      String out,
      long events,
      int seconds,
      String name)
      throws Exception {
    if (seconds <= 0) {
      return null;
    }
    SteadyState.awaitAll(name, events, () -> SourceProgress.emitted(SteadyState.sourceName(in)));
    return latency(config, input, in, out, seconds, "live-" + name + "-");
  }

  /**
   * End-to-end latency on a live input: {@link #LATENCY_RATE} events per second for {@code
   * seconds}, each with its send time as its {@code time}, sent while a read-committed consumer
   * reads the output topic. For each output record of those events: the broker's LogAppendTime of
   * the output record (written, not yet committed) and the time the consumer received it (visible:
   * committed, i.e. after the checkpoint that covers it), each minus the send time.
   */
  static Latency latency(
      WeirConfig config, TrackingGenerator input, String in, String out, int seconds, String prefix)
      throws Exception {
    EventCodec<TrackingEvent> codec =
        EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class);
    long total = (long) LATENCY_RATE * seconds;
    long[] append = new long[(int) total];
    long[] visible = new long[(int) total];
    int seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = ReadCommitted.fromEnd(config, out)) {
      PacedInput sender =
          new PacedInput(
              config,
              "bench-live-input",
              LATENCY_RATE,
              (int) total,
              (producer, i) -> {
                TrackingEvent e = input.next(prefix, Instant.now());
                producer.send(in, e.distinctId().getBytes(StandardCharsets.UTF_8), codec.encode(e));
              });
      long deadline = System.nanoTime() + Duration.ofSeconds(seconds + 120L).toNanos();
      while (seen < total && System.nanoTime() < deadline) {
        var records = consumer.poll(Duration.ofMillis(100));
        long now = System.currentTimeMillis();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          JsonNode event = Json.mapper().readTree(r.value());
          if (!event.path("event_id").asText().startsWith(prefix) || seen >= total) {
            continue;
          }
          long sentAt = Instant.parse(event.path("time").asText()).toEpochMilli();
          append[seen] = r.timestamp() - sentAt;
          visible[seen] = now - sentAt;
          seen++;
        }
        sender.sent(); // fails if sending did
      }
      sender.close();
    }
    if (seen < total) {
      throw new IllegalStateException(
          "only " + seen + " of " + total + " live events reached " + out + " within 2 minutes");
    }
    Arrays.sort(append);
    Arrays.sort(visible);
    Latency latency =
        new Latency(
            total,
            PacedInput.percentile(append, 0.5),
            PacedInput.percentile(append, 0.99),
            PacedInput.percentile(visible, 0.5),
            PacedInput.percentile(visible, 0.99));
    System.out.printf(
        "latency to %s: written p50 %d ms, p99 %d ms; visible p50 %d ms, p99 %d ms%n",
        out, latency.appendP50(), latency.appendP99(), latency.visibleP50(), latency.visibleP99());
    return latency;
  }
}
