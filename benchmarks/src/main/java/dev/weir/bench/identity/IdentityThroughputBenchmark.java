package dev.weir.bench.identity;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.PacedInput;
import dev.weir.bench.support.ReadCommitted;
import dev.weir.bench.support.SourceProgress;
import dev.weir.bench.support.SteadyState;
import dev.weir.bench.support.SteadyStateTable;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.DeadLetters;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.EventTimes;
import dev.weir.common.kafka.KafkaIo;
import dev.weir.identity.Enricher;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityKey;
import dev.weir.identity.IdentityOptions;
import dev.weir.schema.EnrichedTrackingEvent;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.TopicConfig;

/**
 * identity at steady state, from Kafka to Kafka, as deployed (issue 27.1). The tracking topic (and
 * the identity events the job resolves) are filled before any clock starts; then each side reads
 * the whole tracking topic from its beginning, one after the other, on the same machine:
 *
 * <ol>
 *   <li>the decode limit: a Flink job that reads the topic, decodes and validates every event as
 *       the job does ({@link KafkaIo#read}) and discards it;
 *   <li>the exactly-once pass-through limit: a Flink job that writes every record unchanged to
 *       another topic through the same exactly-once Kafka sink ({@link KafkaIo#exactlyOnceSink}),
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
    KafkaIo.createTopicsIfMissing(base, List.of(tracking, identity), partitions);
    createLogAppendTimeTopics(
        base, List.of(passOut, floorOut, enriched, enrichedDefaults, warmOut), partitions);
    try {

      Generator input = new Generator(repeat);
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
      // JIT compiler spent 0.6 (floor) to 1.4 (pass-through, weir) µs per event inside the
      // measured windows compiling the rest; warmed, 0.1-0.4.
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
      KafkaIo.deleteTopics(
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

  /**
   * The input: tracking events of a web shop's analytics (~700 bytes of JSON each), in which a
   * share {@code 1 - repeat} of the events brings a distinct id never seen before, spread evenly
   * over the input, and the others repeat an id already seen, chosen at random; every tenth new id
   * is later identified as a user (one identity event).
   */
  static final class Generator {
    private static final Instant START = Instant.parse("2026-01-05T09:00:00Z");
    private static final String[] NAMES = {
      "page_view", "page_view", "page_view", "product_view", "add_to_cart", "search", "checkout"
    };
    private static final String[] BROWSERS = {"Chrome", "Safari", "Firefox", "Edge"};
    private static final String[] OSES = {"Windows", "Mac OS X", "iOS", "Android", "Linux"};
    private static final String[] CITIES = {"Berlin", "Lyon", "Austin", "Osaka", "Leeds"};
    private static final String[] SOURCES = {"google", "newsletter", "facebook", "direct"};

    private final double repeat;
    private final SplittableRandom random = new SplittableRandom(27);
    private final List<String> ids = new ArrayList<>();
    private final List<IdentityEvent> identifies = new ArrayList<>();
    private long n;

    Generator(double repeat) {
      this.repeat = repeat;
    }

    /** The next event; {@code time} null for the input's own increasing times. */
    TrackingEvent next(String eventIdPrefix, Instant time) {
      long i = n++;
      String id;
      if (ids.isEmpty() || random.nextDouble() >= repeat) {
        id = "anon-" + Long.toHexString(0x1000_0000_0000L + ids.size() * 7919L);
        ids.add(id);
        if (ids.size() % 10 == 0) {
          identifies.add(
              new IdentityEvent(
                  "identify-" + ids.size(),
                  IdentityEvent.Type.IDENTIFY,
                  PROJECT,
                  id,
                  "user-" + ids.size(),
                  START.plusMillis(i * 10)));
        }
      } else {
        id = ids.get(random.nextInt(ids.size()));
      }
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("$insert_id", Long.toHexString(random.nextLong()));
      p.put("$browser", BROWSERS[random.nextInt(BROWSERS.length)]);
      p.put("$browser_version", 110 + random.nextInt(20));
      p.put("$os", OSES[random.nextInt(OSES.length)]);
      p.put("$current_url", "https://shop.example.com/products/" + random.nextInt(50_000));
      p.put("$referrer", "https://www.google.com/search?q=winter+boots");
      p.put("$referring_domain", "www.google.com");
      p.put("$screen_height", 1080);
      p.put("$screen_width", 1920);
      p.put("mp_lib", "web");
      p.put("$lib_version", "2.55.1");
      p.put("$city", CITIES[random.nextInt(CITIES.length)]);
      p.put("mp_country_code", "DE");
      p.put("utm_source", SOURCES[random.nextInt(SOURCES.length)]);
      p.put("utm_medium", "cpc");
      p.put("utm_campaign", "winter-sale-2026");
      p.put("plan", "pro");
      p.put("cart_value", random.nextInt(100_000) / 100.0);
      p.put("items", random.nextInt(8));
      p.put("experiment", Map.of("id", "checkout-v2", "variant", random.nextBoolean() ? "A" : "B"));
      return new TrackingEvent(
          eventIdPrefix + i,
          PROJECT,
          id,
          NAMES[random.nextInt(NAMES.length)],
          time == null ? START.plusMillis(i * 10) : time,
          p);
    }
  }

  private record Preloaded(double meanBytes, long distinctIds, long identityEvents) {}

  /** The input, written before any clock starts: tracking events keyed by distinct id. */
  private static Preloaded preload(
      WeirConfig config, String tracking, String identity, Generator input, long events) {
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
      for (IdentityEvent e : input.identifies) {
        producer.send(identity, PROJECT.getBytes(StandardCharsets.UTF_8), identityCodec.encode(e));
      }
      producer.flush();
    }
    System.out.printf(
        "%,d tracking events (%,d distinct ids, %.0f bytes each on average) and %,d identity"
            + " events written in %.1f s%n",
        events,
        input.ids.size(),
        (double) bytes / events,
        input.identifies.size(),
        (System.nanoTime() - start) / 1e9);
    return new Preloaded((double) bytes / events, input.ids.size(), input.identifies.size());
  }

  /**
   * Output topics whose records carry the time the broker appended them (LogAppendTime), for the
   * latency from an event's send time to its output being written.
   */
  private static void createLogAppendTimeTopics(
      WeirConfig config, List<String> topics, int partitions) throws Exception {
    try (Admin admin = KafkaIo.admin(config)) {
      List<NewTopic> created = new ArrayList<>();
      for (String topic : topics) {
        created.add(
            new NewTopic(topic, partitions, (short) 1)
                .configs(Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime")));
      }
      admin.createTopics(created).all().get();
    }
    KafkaIo.createTopicsIfMissing(config, topics, partitions); // waits for their leaders
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
    return KafkaIo.read(
        env,
        config,
        dlq,
        topic,
        codec,
        EventTimes.storable(TrackingEvent::time),
        Enricher.EVENT,
        KafkaIo.Watermarks.none(),
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
            .setProperties(KafkaIo.clientProperties(config))
            .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
            .setDeserializer(new KeyAndValue())
            .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), in)
        .uid("bench-pass-source")
        .name(in)
        .sinkTo(
            KafkaIo.exactlyOnceSink(
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

  /**
   * The least an enrichment from keyed state does per event: read the key's cached id (written on
   * the key's first event: the id itself) and emit the event with it. weir's enricher does this on
   * a hit, and at 99 % hits little else.
   */
  static final class CachedIdFloor
      extends KeyedProcessFunction<IdentityKey, TrackingEvent, EnrichedTrackingEvent> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<String> canonicalId;

    @Override
    public void open(OpenContext context) {
      canonicalId =
          getRuntimeContext().getState(new ValueStateDescriptor<>("canonical-id", Types.STRING));
    }

    @Override
    public void processElement(
        TrackingEvent event, Context ctx, Collector<EnrichedTrackingEvent> out) throws Exception {
      String id = canonicalId.value();
      if (id == null) {
        id = event.distinctId();
        canonicalId.update(id);
      }
      out.collect(event.withCanonicalId(id));
    }
  }

  /** A record's key and value, as they are. */
  static final class KeyAndValue implements KafkaRecordDeserializationSchema<byte[][]> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<byte[][]> out) {
      out.collect(new byte[][] {record.key(), record.value()});
    }

    @Override
    public TypeInformation<byte[][]> getProducedType() {
      return TypeInformation.of(byte[][].class);
    }
  }

  /** Once the side has read the whole pre-loaded topic: its latency on a paced live input. */
  private static Latency afterAll(
      WeirConfig config,
      Generator input,
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
      WeirConfig config, Generator input, String in, String out, int seconds, String prefix)
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

  /** The results as Markdown, with the command that made them. */
  /**
   * What the keyed-state floor says of the gap to the pass-through: its own share of it, and the
   * CPU per event of the job's JVM it and weir take.
   */
  public static String floorSentence(Report r) {
    return String.format(
        "The keyed-state floor (decode, a keyed shuffle, one cached id read from RocksDB per event,"
            + " the same exactly-once sink, nothing else) ran at %.2f of the pass-through, its JVM"
            + " at %.1f µs per event (%,.0f events per CPU-second) against weir's %.1f µs.",
        r.floor().eventsPerSecond() / r.passThrough().eventsPerSecond(),
        1e6 / r.floor().eventsPerJvmCpuSecond(),
        r.floor().eventsPerJvmCpuSecond(),
        1e6 / r.weir().eventsPerJvmCpuSecond());
  }

  /** weir's Kafka producer settings against Kafka's defaults, both in the same run. */
  public static String producerSentence(Report r) {
    SteadyState.Side defaults = r.weirKafkaDefaults();
    return String.format(
        "Kafka producer: with Kafka 3.9's defaults (no linger, 16 KiB batches) instead of weir's"
            + " (`kafka.producer.linger` %d ms, `kafka.producer.batch-size` %d KiB) the job read"
            + " %,.0f events/s (%.2f× the rate), at %,.0f events per CPU-second of its JVM and"
            + " %.1f µs of Kafka's CPU per event, against %,.0f and %.1f µs.",
        WeirOptions.KAFKA_PRODUCER_LINGER.defaultValue().toMillis(),
        WeirOptions.KAFKA_PRODUCER_BATCH_SIZE.defaultValue().getKibiBytes(),
        defaults.eventsPerSecond(),
        defaults.eventsPerSecond() / r.weir().eventsPerSecond(),
        defaults.eventsPerJvmCpuSecond(),
        1000 * defaults.cpuPerThousand("Kafka"),
        r.weir().eventsPerJvmCpuSecond(),
        1000 * r.weir().cpuPerThousand("Kafka"));
  }

  public static String markdown(Report r, String command) {
    StringBuilder md = BenchReport.header("identity at steady state, from Kafka to Kafka", command);
    md.append(
        String.format(
            "input: %,d tracking events (JSON, %.0f bytes each on average, %d partitions, keyed by"
                + " distinct id) over %,d distinct ids: %.0f %% of the events repeat an id already"
                + " seen (a new id is spread evenly over the input, a repeat picks a seen id at"
                + " random), and %,d identify events on the identity topic; all written to fresh"
                + " topics before any clock started. Each side then read the whole tracking topic"
                + " from its beginning, one after the other, at parallelism %d, on this machine's"
                + " cores shared with Kafka, PostgreSQL and Elasticsearch. Rates are over each"
                + " side's steady window, from %.0f %% to %.0f %% of the input consumed (start-up,"
                + " the first checkpoints and the tail left out), from the source operator's own"
                + " record counter; a first, unmeasured pass of each side's job warmed the JIT. The"
                + " Flink jobs ran in this JVM's MiniCluster as the manifests configure them:"
                + " RocksDB state (incremental), exactly-once checkpoints every %d s (the deployed"
                + " interval), the memory of one slot.%n%n",
            r.events(),
            r.meanBytes(),
            r.partitions(),
            r.distinctIds(),
            100 * r.repeat(),
            r.identityEvents(),
            r.parallelism(),
            100 * SteadyState.WINDOW_FROM,
            100 * SteadyState.WINDOW_TO,
            r.checkpointInterval().toSeconds()));
    md.append(
        "- **decode, validate, discard**: `KafkaIo.read` as `IdentityJob` reads its input (JSON"
            + " parse, JSON Schema validation, binding, the time check), then a discarding sink.\n"
            + "- **exactly-once pass-through**: every record written unchanged (key and value) to"
            + " another topic through `KafkaIo.exactlyOnceSink`, transactions committed on each"
            + " checkpoint.\n"
            + "- **keyed-state floor**: the decoded events keyed by (project, distinct id), each"
            + " one's cached id read from RocksDB (written on the key's first event) and the event"
            + " written with it through the job's exactly-once sink: an enrichment from keyed state"
            + " and nothing else.\n"
            + "- **weir identity**: `IdentityJob` itself: both sources, the identify/alias/merge"
            + " resolver, the keyed enricher (keyed-state cache, batched lookups), its exactly-once"
            + " `tracking.enriched` sink and the batched identity-table writes to PostgreSQL.\n"
            + "- **weir identity, Kafka's producer defaults**: the same job with its Kafka sinks at"
            + " Kafka 3.9's producer defaults, on a fresh identity table.\n\n");
    md.append(floorSentence(r)).append("\n\n");
    md.append(producerSentence(r)).append("\n\n");
    Map<String, SteadyState.Side> limits = new LinkedHashMap<>();
    limits.put("vs decode", r.decode());
    limits.put("vs pass-through", r.passThrough());
    List<SteadyState.Side> sides =
        List.of(r.decode(), r.passThrough(), r.floor(), r.weir(), r.weirKafkaDefaults());
    md.append(SteadyStateTable.of(sides, limits).replace("benchmark JVM |", "the job's JVM |"));
    md.append("\n| side | events per CPU-second of the job's JVM |\n|---|---:|\n");
    for (SteadyState.Side s : sides) {
      md.append(String.format("| %s | %,.0f |%n", s.name(), s.eventsPerJvmCpuSecond()));
    }
    md.append(
        String.format(
            "%nweir's cache hit ratio (weirCacheHits / (hits + misses), from its start to the end"
                + " of the window): %.2f %%.%n",
            100 * r.hitRatio()));
    if (r.weirLatency() != null) {
      md.append(
          String.format(
              "%nEnd-to-end latency, after each side had read the whole pre-loaded topic: a live"
                  + " input of %,d events/s for %d s, each event's `time` its send time (= its"
                  + " Kafka CreateTime). *Written*: the output record's LogAppendTime (the output"
                  + " topics are LogAppendTime) minus the send time: through the job and into an"
                  + " open transaction. *Visible*: the time a `read_committed` consumer received it"
                  + " minus the send time: the transaction committed on the next checkpoint.%n%n"
                  + "| side | written p50 | written p99 | visible p50 | visible p99 |%n"
                  + "|---|---:|---:|---:|---:|%n",
              LATENCY_RATE, r.latencySeconds()));
      for (var e :
          Map.of(
                  "exactly-once pass-through",
                  r.passThroughLatency(),
                  "weir identity",
                  r.weirLatency())
              .entrySet()
              .stream()
              .sorted(Map.Entry.comparingByKey())
              .toList()) {
        Latency l = e.getValue();
        md.append(
            String.format(
                "| %s | %,d ms | %,d ms | %,d ms | %,d ms |%n",
                e.getKey(), l.appendP50(), l.appendP99(), l.visibleP50(), l.visibleP99()));
      }
    }
    md.append(
        String.format(
            "%nTargets (issue 27):%n- weir / exactly-once pass-through: **%s** (target ≥ 0.5: %s)%n"
                + "- weir, events per CPU-second of the job's JVM at %.0f %% cache hits: **%,.0f**"
                + " (target ≥ 100,000: %s)%n",
            BenchReport.shown(r.ofPassThrough(), 0.5, ""),
            r.ofPassThrough() >= 0.5 ? "met" : "NOT met",
            100 * r.hitRatio(),
            r.perJvmCpuSecond(),
            r.perJvmCpuSecond() >= 100_000 ? "met" : "NOT met"));
    md.append(
        "\nThe job's JVM is this benchmark's (the MiniCluster runs in it): the Flink job, its Kafka"
            + " clients and JDBC driver, JIT and GC; its JIT and GC parts are already counted in it."
            + " Kafka's CPU includes the transactions' markers and the output's writes; PostgreSQL's"
            + " the identity table's lookups and writes.\n");
    return md.toString();
  }
}
