package dev.weir.bench.feed;

import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.PacedInput;
import dev.weir.bench.support.SourceProgress;
import dev.weir.bench.support.SteadyState;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.dlq.DecodedTopics;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.CollationKey;
import dev.weir.feed.FeedOptions;
import dev.weir.feed.FeedSettings;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * activity-feed at steady state, from Kafka, as deployed: the input topic is filled before any
 * clock starts, then each side reads all of it from the beginning, one after the other, on the same
 * machine:
 *
 * <ol>
 *   <li>the limit: a Flink job that reads the topic, decodes and validates every event exactly as
 *       the job does ({@link DecodedTopics#read}) and discards it;
 *   <li>the keyed-state floor: the same input keyed as the job keys it, each event looked up in and
 *       added to its key's seen ids and its key's one value read and written, in RocksDB, then
 *       dropped ({@link KeyedStateFloor}): what any exactly-once collation by key on RocksDB costs
 *       at least, to tell it from what weir's collation adds;
 *   <li>weir: {@link ActivityFeedJob} itself, RocksDB state, checkpoints at the default interval,
 *       its real PostgreSQL sink and dead-letter sink;
 *   <li>weir with heap timers: the same job, its timers on the heap instead of in RocksDB;
 *   <li>weir holding 10,000 keys: the same job with {@code feed.held-keys} at a tenth of its
 *       default;
 *   <li>the naive way: one consumer loop that decodes each event the same way and collates it with
 *       JDBC, a new row per event and the old one deleted ({@link FeedBenchmark#naiveCollation}).
 * </ol>
 *
 * <p>Once weir's job has read the whole topic, it gets a paced live input for its end-to-end
 * latency ({@link #latency}).
 *
 * <p>Rates are read over the steady window of each side (from {@link SteadyState#WINDOW_FROM} to
 * {@link SteadyState#WINDOW_TO} of the input consumed: start-up, the first checkpoints and the tail
 * are outside), from the source operator's own record counters ({@link SourceProgress}), with the
 * CPU each process used in that window. A first, unmeasured pass of the limit job warms this JVM's
 * JIT.
 */
public final class FeedThroughputBenchmark {

  /** Events per second of the paced live input the latency is measured on. */
  static final int LATENCY_RATE = 500;

  /** {@code feed.held-keys} of the side that holds fewer keys. */
  static final int FEW_KEYS_HELD = 10_000;

  /**
   * Every side of one run.
   *
   * @param latency weir's, on a live input after the whole topic (null if not measured)
   */
  public record Report(
      int events,
      int burst,
      int partitions,
      SteadyState.Side limit,
      SteadyState.Side floor,
      SteadyState.Side weir,
      SteadyState.Side weirHeapTimers,
      SteadyState.Side weirFewKeysHeld,
      SteadyState.Side naive,
      PacedInput.Latency latency,
      int latencySeconds) {}

  private FeedThroughputBenchmark() {}

  /**
   * @param latencySeconds how long the live input for the latency runs (0: not measured)
   */
  public static Report run(
      LocalStack stack, int events, int burst, int partitions, int latencySeconds)
      throws Exception {
    Connections connections = stack.up();
    WeirConfig base = WeirConfig.from(Map.of(), connections.environment());
    String topic = "bench.activity.steady." + System.currentTimeMillis();
    KafkaTopics.createTopicsIfMissing(base, List.of(topic), partitions);
    try {
      EventCodec<ActivityEvent> codec =
          EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
      List<ActivityEvent> input = FeedBenchmark.generate(events, burst);
      preload(base, topic, codec, input);
      // The live events go on from the pre-loaded ones' event time: nothing is archived meanwhile.
      Instant liveFrom = input.get(input.size() - 1).occurredAt().plusSeconds(10);

      FeedSettings settings = FeedSettings.defaults();
      System.out.println("warming up: the decode-and-discard job over the whole topic");
      SteadyState.measureJob(
          stack, "warm-up", topic, events, () -> startLimit(base, topic, codec, settings, "warm"));
      SteadyState.Side limit =
          SteadyState.measureJob(
              stack,
              "decode and discard",
              topic,
              events,
              () -> startLimit(base, topic, codec, settings, "limit"));
      SteadyState.Side floor =
          SteadyState.measureJob(
              stack,
              "keyed-state floor",
              topic,
              events,
              () -> startFloor(base, topic, codec, settings));
      // weir's own code warmed the same way: a first pass of the job into a database of its own
      // (a consumer group of its own too), so that the measured window does not pay for the JIT
      // compiling the collator, RocksDB's state and the store.
      WeirConfig warmDb =
          BenchEnvironment.freshDatabase(stack, connections, "bench_feed_steady_warm")
              .with(FeedOptions.TOPIC, topic)
              .with(WeirOptions.DEPLOYMENT_ID, "warm-up");
      SteadyState.measureJob(stack, "weir warm-up", topic, events, () -> startWeir(warmDb));
      WeirConfig weirDb =
          BenchEnvironment.freshDatabase(stack, connections, "bench_feed_steady")
              .with(FeedOptions.TOPIC, topic);
      AtomicReference<PacedInput.Latency> latency = new AtomicReference<>();
      SteadyState.Side weir =
          SteadyState.measureJob(
              stack,
              "weir activity-feed",
              topic,
              events,
              () -> startWeir(weirDb),
              job -> {
                if (latencySeconds > 0) {
                  SteadyState.awaitAll(
                      "weir activity-feed",
                      events,
                      () -> SourceProgress.emitted(SteadyState.sourceName(topic)));
                  latency.set(latency(weirDb, topic, codec, liveFrom, latencySeconds));
                }
              });
      // The same job with its timers on the heap, right after its run with them in RocksDB (the
      // default): faster at small sizes, but heap timers hold the heap per live entry and are
      // written whole at every checkpoint (docs/state.md).
      WeirConfig heapTimersDb =
          BenchEnvironment.freshDatabase(stack, connections, "bench_feed_steady_heap_timers")
              .with(FeedOptions.TOPIC, topic)
              .with(WeirOptions.DEPLOYMENT_ID, "heap-timers");
      SteadyState.Side weirHeapTimers =
          SteadyState.measureJob(
              stack,
              "weir, heap timers",
              topic,
              events,
              () -> startWeir(heapTimersDb, PriorityQueueStateType.HEAP));
      // And with fewer keys held between checkpoints: each key's release and coalesced write then
      // find its bookkeeping written back to RocksDB and read it again.
      WeirConfig fewKeysDb =
          BenchEnvironment.freshDatabase(stack, connections, "bench_feed_steady_few_keys")
              .with(FeedOptions.TOPIC, topic)
              .with(FeedOptions.HELD_KEYS, FEW_KEYS_HELD)
              .with(WeirOptions.DEPLOYMENT_ID, "few-keys-held");
      SteadyState.Side weirFewKeysHeld =
          SteadyState.measureJob(
              stack,
              String.format("weir, %,d keys held", FEW_KEYS_HELD),
              topic,
              events,
              () -> startWeir(fewKeysDb));
      WeirConfig naiveDb =
          BenchEnvironment.freshDatabase(stack, connections, "bench_feed_steady_naive");
      SteadyState.Side naive = measureNaive(stack, naiveDb, topic, events, codec, settings);
      return new Report(
          events,
          burst,
          partitions,
          limit,
          floor,
          weir,
          weirHeapTimers,
          weirFewKeysHeld,
          naive,
          latency.get(),
          latencySeconds);
    } finally {
      // Millions of events are gigabytes on the broker's disk: not left behind for the next run.
      KafkaTopics.deleteTopics(base, List.of(topic));
    }
  }

  /**
   * End-to-end latency on a live input: {@link #LATENCY_RATE} events per second for {@code
   * seconds}, each the first of a new entry, while {@code feed_entry} is read every 100 ms (by its
   * recency index, from the event time of the oldest event not seen yet). An event's latency is the
   * time of the first read that found its entry less the time it was sent.
   */
  static PacedInput.Latency latency(
      WeirConfig config,
      String topic,
      EventCodec<ActivityEvent> codec,
      Instant liveFrom,
      int seconds)
      throws Exception {
    int total = LATENCY_RATE * seconds;
    long[] sentAt = new long[total]; // wall-clock ms, 0 until sent
    Instant[] eventTime = new Instant[total];
    long[] visible = new long[total];
    boolean[] seen = new boolean[total];
    long start = System.nanoTime();
    PacedInput sender =
        new PacedInput(
            config,
            "bench-live-feed-input",
            LATENCY_RATE,
            total,
            (producer, i) -> {
              // Milliseconds, as read back: the cursor below compares it with last_at.
              eventTime[i] =
                  liveFrom.plusNanos(System.nanoTime() - start).truncatedTo(ChronoUnit.MILLIS);
              ActivityEvent e =
                  new ActivityEvent(
                      "live-e-" + i,
                      "ws-live",
                      "actor-live-" + (i % 997),
                      "repository",
                      "live-" + i,
                      "push",
                      eventTime[i],
                      new HashMap<>(Map.of("n", 0)));
              sentAt[i] = System.currentTimeMillis();
              producer.send(topic, e.elementId().getBytes(StandardCharsets.UTF_8), codec.encode(e));
            });
    int seenCount = 0;
    int oldestUnseen = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(seconds + 120L).toNanos();
    try (Connection c = PostgresConnectionProvider.open(config);
        PreparedStatement read =
            c.prepareStatement(
                "SELECT element_id FROM feed_entry WHERE workspace_id = 'ws-live' AND last_at >= ?")) {
      while (seenCount < total && System.nanoTime() < deadline) {
        Thread.sleep(100);
        int sentSoFar = sender.sent();
        if (oldestUnseen >= sentSoFar) {
          continue;
        }
        read.setTimestamp(1, Timestamp.from(eventTime[oldestUnseen].minusMillis(1)));
        try (ResultSet rs = read.executeQuery()) {
          long now = System.currentTimeMillis();
          while (rs.next()) {
            int i = Integer.parseInt(rs.getString(1).substring("live-".length()));
            if (i < total && !seen[i] && sentAt[i] > 0) {
              seen[i] = true;
              visible[i] = now - sentAt[i];
              seenCount++;
            }
          }
        }
        while (oldestUnseen < sentSoFar && seen[oldestUnseen]) {
          oldestUnseen++;
        }
      }
    }
    sender.close();
    if (seenCount < total) {
      throw new IllegalStateException(
          "only " + seenCount + " of " + total + " live events reached feed_entry in 2 minutes");
    }
    PacedInput.Latency latency = PacedInput.Latency.of(visible);
    System.out.printf(
        "latency to feed_entry: visible p50 %d ms, p99 %d ms%n",
        latency.visibleP50(), latency.visibleP99());
    return latency;
  }

  /** The input, written before any clock starts, each entry's events on one partition. */
  private static void preload(
      WeirConfig config,
      String topic,
      EventCodec<ActivityEvent> codec,
      List<ActivityEvent> events) {
    long start = System.nanoTime();
    try (EventProducer producer = new EventProducer(config)) {
      for (ActivityEvent e : events) {
        producer.send(topic, e.elementId().getBytes(StandardCharsets.UTF_8), codec.encode(e));
      }
      producer.flush();
    }
    System.out.printf(
        "%,d events written to %s in %.1f s%n",
        events.size(), topic, (System.nanoTime() - start) / 1e9);
  }

  private static JobClient startLimit(
      WeirConfig config,
      String topic,
      EventCodec<ActivityEvent> codec,
      FeedSettings settings,
      String name)
      throws Exception {
    return SteadyState.startDiscarding(
        config, name, (env, dlq) -> readAsTheJob(env, dlq, config, topic, codec, settings, name));
  }

  private static JobClient startFloor(
      WeirConfig config, String topic, EventCodec<ActivityEvent> codec, FeedSettings settings)
      throws Exception {
    return SteadyState.startDiscarding(
        config,
        "floor",
        (env, dlq) ->
            readAsTheJob(env, dlq, config, topic, codec, settings, "floor")
                .keyBy(CollationKey::of)
                .process(new KeyedStateFloor())
                .returns(ActivityFeedJob.EVENT)
                .uid("bench-floor-state")
                .name("keyed state"));
  }

  /** weir's job as deployed, on {@code config}'s database and topic. */
  private static JobClient startWeir(WeirConfig config) throws Exception {
    return JobRunner.start(new ActivityFeedJob(), BenchEnvironment.miniClusterAsDeployed(), config);
  }

  /** weir's job with its timers where the cluster's configuration puts them. */
  private static JobClient startWeir(WeirConfig config, PriorityQueueStateType timersIn)
      throws Exception {
    Configuration timers = new Configuration();
    timers.set(RocksDBOptions.TIMER_SERVICE_FACTORY, timersIn);
    return JobRunner.start(
        new ActivityFeedJob(), BenchEnvironment.miniClusterAsDeployed(timers), config);
  }

  /** The topic read and decoded exactly as {@link ActivityFeedJob} reads its input. */
  private static DataStream<ActivityEvent> readAsTheJob(
      StreamExecutionEnvironment env,
      DeadLetters dlq,
      WeirConfig config,
      String topic,
      EventCodec<ActivityEvent> codec,
      FeedSettings settings,
      String name) {
    env.getConfig().enableObjectReuse(); // as ActivityFeedJob
    return DecodedTopics.read(
        env,
        config,
        dlq,
        topic,
        codec,
        ActivityFeedJob.EVENT,
        ActivityFeedJob.watermarks(settings),
        "bench-" + name);
  }

  private static SteadyState.Side measureNaive(
      LocalStack stack,
      WeirConfig config,
      String topic,
      int events,
      EventCodec<ActivityEvent> codec,
      FeedSettings settings)
      throws Exception {
    AtomicLong consumed = new AtomicLong();
    AtomicReference<Exception> failure = new AtomicReference<>();
    Thread loop =
        new Thread(
            () -> {
              try (KafkaEvents input = new KafkaEvents(config, topic, events, codec, consumed)) {
                FeedBenchmark.naiveCollation(config, input, settings);
              } catch (Exception e) {
                failure.set(e);
              }
            },
            "naive-collation");
    loop.start();
    SteadyState.Side side =
        SteadyState.window(
            stack,
            "naive JDBC loop",
            events,
            () -> {
              if (failure.get() != null) {
                throw new IllegalStateException("the naive loop failed", failure.get());
              }
              return consumed.get();
            });
    loop.join();
    return side;
  }
}
