package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.KafkaIo;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityOptions;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.TrackingEvent;
import dev.weir.stack.FlinkCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Failover on a real multi-process Flink cluster (a JobManager and two TaskManagers, each its own
 * JVM, see {@link FlinkCluster}), the deployable jar submitted through the REST API, input flowing
 * the whole time.
 */
@ExtendWith(LocalStackExtension.class)
class ClusterFailoverITCase {

  private static final int PORT = 18181;
  private static final String ENTRY = "dev.weir.common.job.JobRunner";
  private static FlinkCluster cluster;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void clusterUp() {
    cluster = new FlinkCluster(LocalStackExtension.stack().settings(), PORT);
    cluster.up(2, LocalStackExtension.connections().environment());
  }

  @AfterAll
  static void clusterDown() {
    if (cluster != null) {
      cluster.down();
    }
  }

  @Test
  void identityLosesAndDuplicatesNothingWhenATaskManagerIsKilledMidStream() throws Exception {
    WeirConfig config = identityConfig("kill");
    String job = cluster.submit(jar(), ENTRY, args(config, "identity"), 2, null);
    try (Input input = new Input(config)) {
      Await.until(Duration.ofSeconds(90), () -> cluster.completedCheckpoints(job), n -> n >= 2);

      long killed = System.nanoTime();
      cluster.killTaskManager(1);
      cluster.startTaskManager(1); // a replacement, as Kubernetes would start one
      // The JobManager notices the lost TaskManager (heartbeat timeout) and restarts the job.
      Await.until(Duration.ofSeconds(30), () -> cluster.job(job), s -> !s.allTasksRunning());
      Await.until(
          Duration.ofSeconds(60),
          () -> cluster.job(job),
          s -> s.state().equals("RUNNING") && s.allTasksRunning());
      double toRunning = (System.nanoTime() - killed) / 1e9;
      System.out.printf("identity: TaskManager killed -> job RUNNING again in %.1f s%n", toRunning);
      long checkpointsAfter = cluster.completedCheckpoints(job);
      Await.until(
          Duration.ofSeconds(60),
          () -> cluster.completedCheckpoints(job),
          n -> n > checkpointsAfter);
      Thread.sleep(3_000); // more input after the recovery
      input.stop();
      assertEachEventOnce(config, input.sent(), "TaskManager killed");
    } finally {
      cluster.cancel(job);
    }
  }

  @Test
  void identityStoppedWithASavepointAndStartedFromItContinuesWhereItStopped() throws Exception {
    WeirConfig config = identityConfig("savepoint");
    String first = cluster.submit(jar(), ENTRY, args(config, "identity"), 2, null);
    String second = null;
    try (Input input = new Input(config)) {
      Await.until(Duration.ofSeconds(90), () -> cluster.completedCheckpoints(first), n -> n >= 1);
      String savepoint = cluster.stopWithSavepoint(first);
      // Input goes on while no job runs; the new submission (an upgrade) starts from the savepoint:
      // its Kafka offsets and keyed state come back under the same operator uids.
      Thread.sleep(2_000);
      second = cluster.submit(jar(), ENTRY, args(config, "identity"), 2, savepoint);
      String started = second;
      Await.until(
          Duration.ofSeconds(60),
          () -> cluster.job(started),
          s -> s.state().equals("RUNNING") && s.allTasksRunning());
      // Restored, every operator's state matched by its uid (unmatched state would refuse to
      // start).
      assertThat(cluster.restoredFrom(started)).contains(savepoint);
      Thread.sleep(3_000);
      input.stop();
      assertEachEventOnce(config, input.sent(), "stopped with a savepoint, started from it");
    } finally {
      if (second != null) {
        cluster.cancel(second);
      }
    }
  }

  private WeirConfig identityConfig(String name) {
    WeirConfig config =
        TestDatabases.fresh(LocalStackExtension.config(), "it_failover_" + name)
            .with(IdentityOptions.TRACKING_TOPIC, "it.failover.tracking." + run)
            .with(IdentityOptions.IDENTITY_TOPIC, "it.failover.identity." + run)
            .with(IdentityOptions.ENRICHED_TOPIC, "it.failover.enriched." + run)
            .with(WeirOptions.DLQ_TOPIC, "it.failover.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    KafkaIo.createTopicsIfMissing(config, new IdentityJob().topics(config), 2);
    return config;
  }

  /** Every event sent is in the enriched topic exactly once, with its canonical id. */
  private static void assertEachEventOnce(WeirConfig config, int total, String what) {
    List<EnrichedTrackingEvent> out = new ArrayList<>();
    Kafka.readCommitted(
            config.get(IdentityOptions.ENRICHED_TOPIC),
            Duration.ofSeconds(120),
            r -> r.size() >= total)
        .forEach(
            r -> {
              try {
                out.add(
                    EventCodec.of(EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class)
                        .decode(r.value()));
              } catch (dev.weir.schema.InvalidEventException e) {
                throw new AssertionError(e);
              }
            });
    Map<String, String> canonicalByEvent = new HashMap<>();
    for (EnrichedTrackingEvent e : out) {
      assertThat(canonicalByEvent.put(e.eventId(), e.canonicalId()))
          .as("event %s emitted once", e.eventId())
          .isNull();
    }
    assertThat(canonicalByEvent).as("every event, none lost").hasSize(total);
    for (int n = 1; n <= total; n++) {
      assertThat(canonicalByEvent.get("e" + n)).isEqualTo("v" + (n % 50));
    }
    System.out.printf(
        "identity, %s: %d events in, %d out, 0 lost, 0 duplicated%n", what, total, out.size());
  }

  /** Tracking events flowing continuously (200/s): 50 anonymous visitors, each its own id. */
  private static final class Input implements AutoCloseable {
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;

    Input(WeirConfig config) {
      thread =
          new Thread(
              () -> {
                try {
                  while (producing.get()) {
                    List<String> batch = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                      batch.add(event(sent.incrementAndGet()));
                    }
                    Kafka.produce(config.get(IdentityOptions.TRACKING_TOPIC), batch);
                    Thread.sleep(250);
                  }
                } catch (Throwable e) {
                  failure.set(e);
                }
              },
              "tracking producer");
      thread.start();
    }

    void stop() throws InterruptedException {
      producing.set(false);
      thread.join();
      assertThat(failure.get()).isNull();
    }

    int sent() {
      return sent.get();
    }

    @Override
    public void close() throws InterruptedException {
      producing.set(false);
      thread.join();
    }
  }

  private static String event(int n) {
    TrackingEvent e =
        new TrackingEvent(
            "e" + n,
            "p1",
            "v" + (n % 50),
            "page_view",
            Instant.parse("2026-11-21T08:00:00Z").plusSeconds(n),
            new HashMap<>(Map.of("n", n)));
    return new String(
        EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class).encode(e),
        StandardCharsets.UTF_8);
  }

  /** The job's options as the arguments the deployable jar takes. */
  private static List<String> args(WeirConfig config, String job) {
    List<String> args = new ArrayList<>(List.of("--job", job));
    config.asMap().forEach((k, v) -> args.addAll(List.of("--" + k, v)));
    return args;
  }

  private static Path jar() {
    return FlinkCluster.jobsJar(Path.of(".."));
  }
}
