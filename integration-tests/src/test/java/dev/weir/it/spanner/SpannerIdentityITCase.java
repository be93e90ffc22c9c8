package dev.weir.it.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.spanner.SpannerTable.Row;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.TrackingEvent;
import dev.weir.stack.FlinkCluster;
import dev.weir.stack.LocalStack;
import dev.weir.stack.SpannerEmulatorService;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * identity on Cloud Spanner's emulator, end to end, as deployed: the deployable jar submitted to a
 * real Flink cluster (a JobManager and a TaskManager, each its own JVM, see {@link FlinkCluster}),
 * so the job runs on the class path it ships with. The tests run in order on one job: the rules,
 * the DLQ, column-only writes read back, a row deleted behind the job, commits the emulator aborts,
 * a restart from a checkpoint, and, once it is cancelled, nothing of its clients left open.
 */
@ExtendWith(LocalStackExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SpannerIdentityITCase {

  /** The cluster's REST port (ClusterFailoverITCase's is 18181). */
  private static final int PORT = 18281;

  private static final String TASK_MANAGER = "taskmanager-1";
  private static final int MERGE_CAP = 4;
  private static final Instant T0 = Instant.parse("2026-11-28T08:00:00Z");

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String PROJECT = "it-" + RUN;
  private static final String TRACKING = "it.spanner.tracking." + RUN;
  private static final String IDENTITY = "it.spanner.identity." + RUN;
  private static final String ENRICHED = "it.spanner.enriched." + RUN;
  private static final String DLQ = "it.spanner.dlq." + RUN;

  /** Every tracking event sent, and the canonical id it must come out with. */
  private static final Map<String, String> EXPECTED = new LinkedHashMap<>();

  private static LocalStack stack;
  private static FlinkCluster cluster;
  private static SpannerTable table;
  private static String job;
  private static int sessionsBefore;

  /** How much of the TaskManager's log earlier runs wrote (the cluster's folder is kept). */
  private static long logBefore;

  @BeforeAll
  static void submitTheJob() throws Exception {
    stack = LocalStackExtension.stack();
    assertThat(stack.spanner().installed())
        .as("the Spanner emulator is installed (%s)", SpannerEmulatorService.HOW_TO_INSTALL)
        .isTrue();
    table = new SpannerTable(stack);
    table.rows(PROJECT); // the test's own session first
    sessionsBefore = table.sessions();
    cluster = new FlinkCluster(stack.settings(), PORT);
    Path log = cluster.log(TASK_MANAGER);
    logBefore = Files.exists(log) ? Files.size(log) : 0;
    // The processes get the stack's variables, Spanner's among them, as pods get a ConfigMap.
    cluster.up(1, stack.environment());
    List<String> args =
        List.of(
            "--job",
            "identity",
            "--identity.store",
            "spanner",
            "--identity.tracking-topic",
            TRACKING,
            "--identity.identity-topic",
            IDENTITY,
            "--identity.enriched-topic",
            ENRICHED,
            "--dlq.topic",
            DLQ,
            "--identity.merge-cap",
            Integer.toString(MERGE_CAP),
            // Long enough for the restart test to act between two checkpoints.
            "--checkpoint.interval",
            "5 s");
    job = cluster.submit(jar(), "dev.weir.common.job.JobRunner", args, 2, null);
    awaitCheckpoints(1);
  }

  @AfterAll
  static void stopTheCluster() {
    if (cluster != null && !Boolean.getBoolean("weir.cluster.keep")) {
      cluster.down();
    }
    if (table != null) {
      table.close();
    }
  }

  /** The reported failure: the Spanner client's metrics met an older OpenTelemetry API. */
  @Test
  @Order(0)
  void theShippedClassPathsCarryTheOpenTelemetryTheSpannerClientIsBuiltOn() throws Exception {
    List<Path> distJar = List.of(jar());
    List<Path> binWeir =
        List.of(Files.readString(Path.of("..", "cli", "target", "classpath.txt")).trim().split(":"))
            .stream()
            .map(Path::of)
            .toList();
    for (List<Path> classPath : List.of(distJar, binWeir)) {
      URL[] urls = new URL[classPath.size()];
      for (int i = 0; i < urls.length; i++) {
        urls[i] = classPath.get(i).toUri().toURL();
      }
      try (URLClassLoader loader = new URLClassLoader(urls, null)) {
        Class<?> builder = loader.loadClass("io.opentelemetry.api.metrics.DoubleHistogramBuilder");
        Method advice = builder.getMethod("setExplicitBucketBoundariesAdvice", List.class);
        assertThat(advice).as("%s on %s", advice, classPath.get(0)).isNotNull();
      }
    }
  }

  @Test
  @Order(1)
  void identifyAliasAndMergeResolveEveryIdAndItsEventsCarryTheCanonicalId() throws Exception {
    track("a1", 10, "a1");
    track("a1", 5, "a1");
    track("a2", 20, "a2");
    track("b1", 30, "b1");
    awaitEnriched();

    identity(IdentityEvent.Type.IDENTIFY, "a1", "user-A");
    identity(IdentityEvent.Type.ALIAS, "a2", "a1");
    identity(IdentityEvent.Type.MERGE, "b1", "a1");
    awaitRow("b1", r -> "user-A".equals(r.canonicalId()));
    // The change reaches the enricher on its own path (docs/identity.md): give it a moment.
    Thread.sleep(2_000);
    track("a1", 40, "user-A");
    track("a2", 15, "user-A");
    track("b1", 25, "user-A");
    awaitEnriched();

    Map<String, Row> rows =
        awaitRows(r -> r.containsKey("a2") && at(15).equals(r.get("a2").earliestSeen()));
    assertThat(rows.get("a1"))
        .extracting(Row::canonicalId, Row::earliestSeen, Row::identifySeen, Row::aliasSeen)
        .containsExactly("user-A", at(5), true, false);
    assertThat(rows.get("a2"))
        .extracting(Row::canonicalId, Row::earliestSeen, Row::identifySeen, Row::aliasSeen)
        .containsExactly("user-A", at(15), false, true);
    assertThat(rows.get("b1"))
        .extracting(Row::canonicalId, Row::earliestSeen)
        .containsExactly("user-A", at(25));
  }

  @Test
  @Order(2)
  void conflictsAndMergesOverTheCapGoToTheDlqAndChangeNothing() throws Exception {
    for (String member : List.of("m2", "m3", "m4", "m5")) {
      identity(IdentityEvent.Type.ALIAS, member, "m1");
    }
    awaitRow("m5", r -> "m1".equals(r.canonicalId()));
    Map<String, Row> before = table.rows(PROJECT);

    identity(IdentityEvent.Type.IDENTIFY, "a1", "user-B");
    identity(IdentityEvent.Type.ALIAS, "a2", "m1");
    // a1's cluster (a1, a2, b1, user-A) is within the cap of 4; m1 and its 4 aliases are not.
    identity(IdentityEvent.Type.MERGE, "m1", "a1");

    List<String> reasons =
        Kafka.readCommitted(DLQ, Duration.ofSeconds(60), r -> r.size() >= 3).stream()
            .map(r -> decode(r.value(), EventSchema.DLQ, DeadLetter.class).reason())
            .toList();
    assertThat(reasons)
        .containsExactly(
            "distinct_id 'a1' is already identified as 'user-A'; identify as 'user-B' rejected",
            "alias 'a2' already maps to 'user-A'; alias to 'm1' (m1) rejected",
            "merge would move more than 4 distinct ids (cap identity.merge-cap = 4)");
    assertThat(table.rows(PROJECT)).isEqualTo(before);
  }

  /**
   * A column the job does not change keeps what another writer put there, though the job's cache
   * still holds the row as it was: its write names earliest_seen only, never the whole row.
   */
  @Test
  @Order(3)
  void aWriteNamesOnlyTheColumnsItChanges() throws Exception {
    track("s1", 50, "s1");
    awaitRow("s1", r -> at(50).equals(r.earliestSeen()));
    Instant sentinel = Instant.parse("2001-02-03T04:05:06Z");
    table.set(
        PROJECT,
        "s1",
        Map.of("people_update_seen", true, "alias_seen", true, "updated_at", sentinel));

    track("s1", 45, "s1");

    Row s1 = awaitRow("s1", r -> at(45).equals(r.earliestSeen()));
    assertThat(s1)
        .extracting(Row::peopleUpdateSeen, Row::aliasSeen, Row::updatedAt, Row::canonicalId)
        .containsExactly(true, true, sentinel, null);
  }

  @Test
  @Order(4)
  void aRowDeletedBehindTheJobIsCreatedAgainByItsNextWrite() throws Exception {
    table.delete(PROJECT, "s1");
    assertThat(table.rows(PROJECT)).doesNotContainKey("s1");

    track("s1", 40, "s1"); // older than the 45 the job holds: it writes earliest_seen

    Row s1 = awaitRow("s1", r -> true);
    // Created with what the write names; the rest at the table's defaults (canonical_id NULL:
    // maps to itself).
    assertThat(s1)
        .extracting(Row::earliestSeen, Row::canonicalId, Row::aliasSeen, Row::peopleUpdateSeen)
        .containsExactly(at(40), null, false, false);
  }

  /**
   * The TaskManager is killed after a checkpoint, once events sent after it have reached the table;
   * a new one restores the job from that checkpoint, and the job applies them again: the table
   * stays exactly as it was, and each tracking event and dead letter is written once.
   */
  @Test
  @Order(5)
  void aRestartFromACheckpointChangesNothing() throws Exception {
    long checkpoint = awaitCheckpoints(1);
    identity(IdentityEvent.Type.IDENTIFY, "r1", "user-R");
    identity(IdentityEvent.Type.ALIAS, "r2", "r1");
    identity(IdentityEvent.Type.IDENTIFY, "a2", "user-B"); // rejected: a2's cluster is user-A's
    track("q1", 60, "q1");
    awaitRows(r -> r.containsKey("r2") && r.containsKey("q1"));
    Map<String, Row> applied = table.rows(PROJECT);
    assertThat(cluster.completedCheckpoints(job))
        .as("no checkpoint since those events were sent")
        .isEqualTo(checkpoint);

    cluster.killTaskManager(1);
    cluster.startTaskManager(1);
    awaitCheckpoints(1);

    assertThat(cluster.restoredFrom(job))
        .hasValueSatisfying(path -> assertThat(path).endsWith("/chk-" + checkpoint));
    assertThat(
            Kafka.readCommitted(DLQ, Duration.ofSeconds(60), r -> r.size() >= 4).stream()
                .map(r -> decode(r.value(), EventSchema.DLQ, DeadLetter.class).reason())
                .filter(reason -> reason.startsWith("distinct_id 'a2'"))
                .toList())
        .as("the replayed rejection, once")
        .hasSize(1);
    awaitEnriched();
    assertThat(table.rows(PROJECT)).isEqualTo(applied);
  }

  /**
   * Concurrent read-write transactions (the test's own, on another project's row, one after the
   * other without a pause) make the emulator abort commits of the job's; each is retried, with no
   * event or row lost or doubled, and the job does not restart for it.
   */
  @Test
  @Order(6)
  void commitsTheEmulatorAbortsAreRetriedWithNothingLostOrDoubled() throws Exception {
    int ids = 60;
    long lastRestart = cluster.job(job).lastRestart();
    try (SpannerTable.Transactions others = table.concurrentTransactions(PROJECT + "-other")) {
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < ids; i++) {
          // Each id's second and third events are older than its first: each one writes.
          track("z" + i, 100 - round * 10 - i % 7, "z" + i);
        }
        Thread.sleep(700); // a flush of the enricher's writes between rounds
      }
      // Tracking and identity events are two topics with no order between them: the identifies
      // below must not overtake the tracking events whose canonical id is expected before them.
      awaitEnriched();
      for (int i = 0; i < ids; i += 3) {
        identity(IdentityEvent.Type.IDENTIFY, "z" + i, "user-z" + i);
      }
      awaitRow("z57", r -> "user-z57".equals(r.canonicalId()));
      assertThat(others.committed()).as("concurrent transactions committed").isPositive();
    }
    awaitEnriched();

    Map<String, Row> rows =
        awaitRows(
            r -> {
              for (int i = 0; i < ids; i++) {
                Row row = r.get("z" + i);
                if (row == null || !at(80 - i % 7).equals(row.earliestSeen())) {
                  return false;
                }
              }
              return true;
            });
    for (int i = 0; i < ids; i++) {
      Row row = rows.get("z" + i);
      assertThat(row).as("z%d", i).isNotNull();
      assertThat(row.earliestSeen()).as("z%d", i).isEqualTo(at(80 - i % 7));
      assertThat(row.canonicalId()).as("z%d", i).isEqualTo(i % 3 == 0 ? "user-z" + i : null);
    }
    assertThat(cluster.job(job).lastRestart()).as("the job did not restart").isEqualTo(lastRestart);
  }

  /**
   * Cancelled, the job closes its Spanner client: the TaskManager keeps no connection to the
   * emulator, never opened one to Cloud Monitoring, and runs no thread of the client library (the
   * library's static ones are stopped when Flink releases the job's class loader); one session was
   * created per client, not per task.
   */
  @Test
  @Order(7)
  void cancelledTheJobLeavesNoClientResourceBehind() throws Exception {
    int port = stack.settings().spannerPort();
    assertThat(cluster.processes().connectionsTo(TASK_MANAGER, port))
        .as("connections while running")
        .isPositive();
    assertThat(cluster.processes().connectionsTo(TASK_MANAGER, 443))
        .as("connections to Google APIs")
        .isZero();

    cluster.cancel(job);
    Await.until(Duration.ofSeconds(60), () -> cluster.job(job).state(), "CANCELED"::equals);

    assertThat(
            Await.until(
                Duration.ofSeconds(30),
                () -> cluster.processes().connectionsTo(TASK_MANAGER, port),
                n -> n == 0))
        .as("connections to the emulator after the cancel")
        .isZero();
    // The client library's threads, its static ones included, end with the job: none would keep
    // the job's class loader. (Counting class loaders tells less: on Java 17 a method handle of the
    // JDK's, made for records' equals and hashCode, keeps the type it was last used with, and so
    // the
    // class loader of the last job that used it, until another job does.)
    assertThat(
            Await.until(
                Duration.ofSeconds(60),
                () -> libraryThreads(cluster.processes().threadNames(TASK_MANAGER)),
                List::isEmpty))
        .as("threads of the Spanner client and gRPC left in the TaskManager")
        .isEmpty();
    byte[] written = Files.readAllBytes(cluster.log(TASK_MANAGER));
    String log =
        new String(
            written, (int) logBefore, written.length - (int) logBefore, StandardCharsets.UTF_8);
    assertThat(log).doesNotContain("NoSuchMethodError").doesNotContain("monitoring.googleapis.com");
    // The last TaskManager's client (the first one's was killed, it never closed).
    Matcher closed =
        Pattern.compile(
                "closed the Spanner client of project \\S+ \\((\\d+) calls, (\\d+) commits, (\\d+) aborted")
            .matcher(log);
    long aborted = -1;
    while (closed.find()) {
      aborted = Long.parseLong(closed.group(3));
    }
    assertThat(aborted).as("the client's closing line in the TaskManager's log").isNotNegative();
    assertThat(aborted).as("commits the emulator aborted (and the client retried)").isPositive();
    // One multiplexed session per client: the first TaskManager's and its replacement's.
    assertThat(table.sessions() - sessionsBefore).isBetween(1, 2);
  }

  // --- helpers

  private static List<String> libraryThreads(List<String> threads) {
    return threads.stream()
        .filter(
            t ->
                t.startsWith("grpc-")
                    || t.startsWith("gcp-mc-bg")
                    || t.startsWith("multiplexed-session-maintainer"))
        .toList();
  }

  private static Path jar() {
    return FlinkCluster.jobsJar(Path.of(".."));
  }

  private static Instant at(int minute) {
    return T0.plus(Duration.ofMinutes(minute));
  }

  private static long awaitCheckpoints(int more) throws Exception {
    long target = cluster.completedCheckpoints(job) + more;
    long reached =
        Await.until(
            Duration.ofSeconds(120),
            () -> {
              FlinkCluster.JobState state = cluster.job(job);
              return state.allTasksRunning() ? cluster.completedCheckpoints(job) : -1L;
            },
            n -> n >= target);
    assertThat(reached).as("completed checkpoints of the job").isGreaterThanOrEqualTo(target);
    return reached;
  }

  private static void track(String distinctId, int minute, String canonical) {
    String id = "t" + (EXPECTED.size() + 1);
    EXPECTED.put(id, canonical);
    send(
        TRACKING,
        EventSchema.TRACKING_EVENTS,
        new TrackingEvent(
            id, PROJECT, distinctId, "page_view", at(minute), new HashMap<>(Map.of("n", 1))));
  }

  private static void identity(IdentityEvent.Type type, String distinctId, String targetId) {
    send(
        IDENTITY,
        EventSchema.IDENTITY_EVENTS,
        new IdentityEvent(
            UUID.randomUUID().toString(), type, PROJECT, distinctId, targetId, at(0)));
  }

  /** One event to partition 0: the job sees them in the order they are sent. */
  @SuppressWarnings("unchecked")
  private static <T> void send(String topic, EventSchema schema, T event) {
    byte[] json = EventCodec.of(schema, (Class<T>) event.getClass()).encode(event);
    Kafka.produce(topic, 0, List.of(new String(json, StandardCharsets.UTF_8)));
  }

  /** What tracking.enriched holds once every event sent is there (a checkpoint commits them). */
  private static List<EnrichedTrackingEvent> awaitEnriched() {
    List<EnrichedTrackingEvent> out = new ArrayList<>();
    Kafka.readCommitted(ENRICHED, Duration.ofSeconds(90), r -> r.size() >= EXPECTED.size())
        .forEach(
            r ->
                out.add(
                    decode(r.value(), EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class)));
    Map<String, String> seen = new HashMap<>();
    for (EnrichedTrackingEvent e : out) {
      assertThat(seen.put(e.eventId(), e.canonicalId()))
          .as("event %s written once", e.eventId())
          .isNull();
    }
    assertThat(seen).hasSize(EXPECTED.size());
    for (Map.Entry<String, String> e : EXPECTED.entrySet()) {
      assertThat(seen.get(e.getKey())).as("canonical id of %s", e.getKey()).isEqualTo(e.getValue());
    }
    return out;
  }

  private static Row awaitRow(String distinctId, java.util.function.Predicate<Row> done)
      throws Exception {
    Row row =
        Await.until(
            Duration.ofSeconds(60),
            () -> table.rows(PROJECT).get(distinctId),
            r -> r != null && done.test(r));
    assertThat(row).as("row %s", distinctId).isNotNull();
    return row;
  }

  private static Map<String, Row> awaitRows(java.util.function.Predicate<Map<String, Row>> done)
      throws Exception {
    return Await.until(Duration.ofSeconds(60), () -> table.rows(PROJECT), done);
  }

  private static <T> T decode(byte[] json, EventSchema schema, Class<T> type) {
    try {
      return EventCodec.of(schema, type).decode(json);
    } catch (InvalidEventException e) {
      throw new AssertionError(e.getMessage(), e);
    }
  }
}
