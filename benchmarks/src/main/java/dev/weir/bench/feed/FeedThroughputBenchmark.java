package dev.weir.bench.feed;

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
import dev.weir.common.kafka.KafkaIo;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.CollationKey;
import dev.weir.feed.FeedOptions;
import dev.weir.feed.FeedSettings;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.InvalidEventException;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * activity-feed at steady state, from Kafka, as deployed (issue 27.1): the input topic is filled
 * before any clock starts, then each side reads all of it from the beginning, one after the other,
 * on the same machine:
 *
 * <ol>
 *   <li>the limit: a Flink job that reads the topic, decodes and validates every event exactly as
 *       the job does ({@link KafkaIo#read}) and discards it;
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
    KafkaIo.createTopicsIfMissing(base, List.of(topic), partitions);
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
      // compiling the collator, RocksDB's state and the store (8-11 µs of CPU per event, unwarmed).
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
      // Three million events are ~1.5 GB on the broker's disk: not left behind for the next run.
      KafkaIo.deleteTopics(base, List.of(topic));
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
        read.setTimestamp(1, java.sql.Timestamp.from(eventTime[oldestUnseen].minusMillis(1)));
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
    return KafkaIo.read(
        env,
        config,
        dlq,
        topic,
        codec,
        ActivityFeedJob.EVENT,
        ActivityFeedJob.watermarks(settings),
        "bench-" + name);
  }

  /**
   * The fewest keyed-state calls an exactly-once collation by key makes per event: is the id new (a
   * read), remember it (a write), read the key's state and write it back. weir's collator makes
   * these and more (the event waits in state for the watermark, then joins an entry). Emits
   * nothing.
   */
  static final class KeyedStateFloor
      extends KeyedProcessFunction<CollationKey, ActivityEvent, ActivityEvent> {
    private static final long serialVersionUID = 1L;
    private transient MapState<String, Boolean> seen;
    private transient ValueState<Long> lastAt;

    @Override
    public void open(OpenContext context) {
      seen =
          getRuntimeContext()
              .getMapState(new MapStateDescriptor<>("seen", Types.STRING, Types.BOOLEAN));
      lastAt = getRuntimeContext().getState(new ValueStateDescriptor<>("last-at", Types.LONG));
    }

    @Override
    public void processElement(ActivityEvent event, Context ctx, Collector<ActivityEvent> out)
        throws Exception {
      if (seen.contains(event.eventId())) {
        return;
      }
      seen.put(event.eventId(), true);
      Long last = lastAt.value();
      long at = event.occurredAt().toEpochMilli();
      lastAt.update(last == null ? at : Math.max(last, at));
    }
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

  /** The topic's events in partition order per partition, decoded as the job decodes them. */
  private static final class KafkaEvents implements Iterable<ActivityEvent>, AutoCloseable {
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

  /**
   * What the keyed-state floor says of the gap to the limit: how much of weir's CPU per event the
   * floor's keyed state alone takes, and the floor's own share of the limit.
   */
  public static String floorSentence(Report r) {
    return String.format(
        "The keyed-state floor (the input keyed as the job keys it, a seen-id lookup and write and"
            + " one value read and written per event in RocksDB, nothing else) ran at %.2f of the"
            + " decode-and-discard limit, with %.0f µs of CPU per event against the limit's %.0f"
            + " and weir's %.0f: keyed state in RocksDB alone takes %.0f µs per event, and weir's"
            + " collation (events waiting for the watermark, entries, the store) %.0f µs more.",
        r.floor().eventsPerSecond() / r.limit().eventsPerSecond(),
        r.floor().cpuMicrosPerEvent(),
        r.limit().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent(),
        r.floor().cpuMicrosPerEvent() - r.limit().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent() - r.floor().cpuMicrosPerEvent());
  }

  /**
   * What one thread allows: at parallelism 1 the collation runs on one thread, whose CPU per event
   * bounds the job's rate however idle the other cores are; and what the targets ask of it.
   */
  public static String threadSentence(Report r) {
    double micros = r.weir().busiestThreadMicrosPerEvent();
    return String.format(
        "At parallelism 1 the collation runs on one thread: weir's busiest thread ('%s') used %.0f"
            + " µs of CPU per event; it was on a core %.0f %% of the window and runnable but waiting"
            + " for one (the cores busy with other threads and processes) %.0f %%. At that cost one"
            + " thread runs at most %,.0f events/s (%.2f of the limit, %.2f× the naive loop); the"
            + " targets need it at %.0f µs per event (0.5 of the limit; the floor's own busiest"
            + " thread used %.0f) and %.0f µs (2× the naive loop).",
        r.weir().busiestThread(),
        micros,
        100 * r.weir().busiestThreadBusy(),
        100 * r.weir().busiestThreadWaitingForCore(),
        1e6 / micros,
        1e6 / micros / r.limit().eventsPerSecond(),
        1e6 / micros / r.naive().eventsPerSecond(),
        1e6 / (0.5 * r.limit().eventsPerSecond()),
        r.floor().busiestThreadMicrosPerEvent(),
        1e6 / (2 * r.naive().eventsPerSecond()));
  }

  /** Timers in RocksDB (the default) against heap timers, at this input's live entries. */
  static String timersSentence(Report r) {
    return String.format(
        "Timers: with its timers on the heap (`state.backend.rocksdb.timer-service.factory: HEAP`)"
            + " weir read %,.0f events/s, %.2f× its rate with them in RocksDB (the default), at"
            + " %.0f against %.0f µs of CPU per event, with %,d entries live at the end (one timer"
            + " each). Heap timers hold heap per live entry and are written whole at every"
            + " checkpoint (docs/state.md).",
        r.weirHeapTimers().eventsPerSecond(),
        r.weirHeapTimers().eventsPerSecond() / r.weir().eventsPerSecond(),
        r.weirHeapTimers().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent(),
        r.events() / r.burst());
  }

  /** The default number of keys held between checkpoints against a tenth of it. */
  public static String heldKeysSentence(Report r) {
    return String.format(
        "Keys held: with `feed.held-keys` at %,d instead of its default %,d weir read %,.0f"
            + " events/s, %.2f× its rate, at %.0f against %.0f µs of CPU per event: a key"
            + " written back to RocksDB before its release and its coalesced write reads and"
            + " writes its bookkeeping again for each.",
        FEW_KEYS_HELD,
        FeedOptions.HELD_KEYS.defaultValue(),
        r.weirFewKeysHeld().eventsPerSecond(),
        r.weirFewKeysHeld().eventsPerSecond() / r.weir().eventsPerSecond(),
        r.weirFewKeysHeld().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent());
  }

  /** The results as Markdown, with the command that made them. */
  public static String markdown(Report r, String command) {
    StringBuilder md = BenchReport.header("activity-feed at steady state, from Kafka", command);
    md.append(
        String.format(
            "Input: %,d activity events (JSON, %d partitions, bursts of %d: %.0f %% collate),"
                + " written to a fresh topic before any clock started. Each side then read the whole"
                + " topic from its beginning, one after the other, at parallelism 1, on this"
                + " machine's cores shared with Kafka and PostgreSQL. Rates are over each side's"
                + " steady window, from %.0f %% to %.0f %% of the input consumed (start-up, the first"
                + " checkpoints and the tail left out), from the source operator's own record"
                + " counter; a first pass of the decode-and-discard job, and one of weir's job"
                + " into a database of its own, warmed the JIT. The Flink"
                + " jobs ran in this JVM's MiniCluster with RocksDB state (incremental checkpoints"
                + " every 10 s, the default interval), exactly-once.%n%n",
            r.events(),
            r.partitions(),
            r.burst(),
            100.0 * (r.burst() - 1) / r.burst(),
            100 * SteadyState.WINDOW_FROM,
            100 * SteadyState.WINDOW_TO));
    md.append(
        SteadyStateTable.of(
            List.of(
                r.limit(), r.floor(), r.weir(), r.weirHeapTimers(), r.weirFewKeysHeld(), r.naive()),
            Map.of("vs the limit", r.limit())));
    double ofLimit = r.weir().eventsPerSecond() / r.limit().eventsPerSecond();
    double ofNaive = r.weir().eventsPerSecond() / r.naive().eventsPerSecond();
    md.append(
        String.format(
            "%nTargets (issue 27):%n- weir / decode-and-discard limit: **%s** (target ≥ 0.5: %s)%n"
                + "- weir / naive JDBC loop: **%s** (target ≥ 2×: %s)%n",
            BenchReport.shown(ofLimit, 0.5, ""),
            ofLimit >= 0.5 ? "met" : "NOT met",
            BenchReport.shown(ofNaive, 2, "×"),
            ofNaive >= 2 ? "met" : "NOT met"));
    md.append(
        String.format(
            "%n%s %s%n%n%s %s%n",
            floorSentence(r), threadSentence(r), timersSentence(r), heldKeysSentence(r)));
    if (r.latency() != null) {
      md.append(
          String.format(
              "%nEnd-to-end latency, after weir's job had read the whole pre-loaded topic: a live"
                  + " input of %,d events/s for %d s, each the first of a new entry, sent while"
                  + " `feed_entry` was read every 100 ms; from an event's send time until a read"
                  + " finds its entry (committed): **p50 %,d ms, p99 %,d ms** over %,d events. The"
                  + " job holds a change up to `feed.max-staleness` (2 s by default: half coalescing,"
                  + " half the store's batch) before its row write.%n",
              LATENCY_RATE,
              r.latencySeconds(),
              r.latency().visibleP50(),
              r.latency().visibleP99(),
              r.latency().events()));
    }
    md.append(
        "\nThe benchmark JVM is the job's (the MiniCluster) for the Flink sides and the naive loop's"
            + " for the naive side; its JIT and GC parts are already counted in it.\n");
    return md.toString();
  }
}
