package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.common.testing.CollectingSink;
import dev.weir.common.testing.OpenSource;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.TrackingEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * identity's pipeline on a MiniCluster, with no service: tracking and identity events in, through
 * the seam {@link IdentityJob#build} uses ({@link IdentityJob#resolve}), over an in-memory identity
 * table, to collecting sinks.
 */
class IdentityPipelineTest {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");
  private static final Duration WRITE_FLUSH = Duration.ofMillis(100);
  private static final WeirConfig CONFIG =
      WeirConfig.from(
          Map.of("identity.write-flush", "100 ms", "identity.lookup-wait", "20 ms"), Map.of());

  private final List<TrackingEvent> tracking = new ArrayList<>();
  private final List<ReadIdentityEvent> identity = new ArrayList<>();

  @BeforeEach
  void emptyTable() {
    InMemoryTable.ROWS.clear();
  }

  @Test
  void eachEventIsEnrichedOnceAndAnUnknownIdIsItsOwnCanonicalId() throws Exception {
    for (int i = 0; i < 50; i++) {
      track("e" + i, "anon-" + (i % 5), T0.plusSeconds(100 - i));
    }

    List<EnrichedTrackingEvent> enriched =
        run(() -> enrichedCount() >= 50 && InMemoryTable.ROWS.size() == 5);

    assertThat(enriched).hasSize(50);
    assertThat(enriched).extracting(EnrichedTrackingEvent::eventId).doesNotHaveDuplicates();
    assertThat(enriched).allSatisfy(e -> assertThat(e.canonicalId()).isEqualTo(e.distinctId()));
    // earliest_seen is the oldest event of each id: anon-0's are at 100, 95, … 55 s.
    assertThat(InMemoryTable.ROWS.get(new IdentityKey("p", "anon-0")).earliestSeen())
        .isEqualTo(T0.plusSeconds(55).toEpochMilli());
  }

  @Test
  void anIdTheTableMapsGetsItsCanonicalIdFromTheTable() throws Exception {
    InMemoryTable.ROWS.put(
        new IdentityKey("p", "anon-1"),
        IdentityRecord.stored("p", "anon-1", "user-1", T0.toEpochMilli(), true, false, false, 0L));
    track("e1", "anon-1", T0.plusSeconds(5));
    track("e2", "anon-2", T0.plusSeconds(6));

    List<EnrichedTrackingEvent> enriched = run(() -> enrichedCount() >= 2);

    assertThat(enriched)
        .extracting(e -> e.eventId() + "→" + e.canonicalId())
        .containsExactlyInAnyOrder("e1→user-1", "e2→anon-2");
  }

  @Test
  void identifyWritesTheMappingAndItsFlagAndAConflictGoesToTheDlq() throws Exception {
    identify("i1", "anon-1", "user-1", T0);
    identify("i2", "anon-1", "user-2", T0.plusSeconds(1)); // already identified as user-1

    run(
        () ->
            InMemoryTable.ROWS.containsKey(new IdentityKey("p", "anon-1"))
                && !CollectingSink.values("identity-dlq").isEmpty());

    IdentityRecord row = InMemoryTable.ROWS.get(new IdentityKey("p", "anon-1"));
    assertThat(row.canonicalId()).isEqualTo("user-1");
    assertThat(row.identifySeen()).isTrue();
    assertThat(CollectingSink.<DeadLetter>values("identity-dlq"))
        .singleElement()
        .satisfies(d -> assertThat(d.reason()).contains("identify as 'user-2' rejected"));
  }

  /**
   * Runs the pipeline until {@code done} holds (its lookups wait on processing-time timers, as on
   * an open Kafka topic), then cancels it; returns what reached tracking.enriched.
   */
  private List<EnrichedTrackingEvent> run(BooleanSupplier done) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    DataStream<TrackingEvent> trackingStream =
        env.addSource(OpenSource.of("tracking", tracking), "tracking", Enricher.EVENT);
    DataStream<ReadIdentityEvent> identityStream =
        env.addSource(
            OpenSource.of("identity", identity),
            "identity",
            TypeInformation.of(ReadIdentityEvent.class));
    DeadLetters dlq = new DeadLetters(IdentityJob.NAME);
    IdentityJob.resolve(
        trackingStream,
        identityStream,
        InMemoryTable::new,
        CONFIG,
        CollectingSink.named("enriched"),
        IdentityJob.writeSink(InMemoryTable::new, CONFIG),
        dlq);
    dlq.sinkTo(CollectingSink.<DeadLetter>named("identity-dlq"));
    JobClient job = env.executeAsync("identity pipeline");
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!done.getAsBoolean() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      Thread.sleep(WRITE_FLUSH.toMillis() * 3); // the table's writes, and any extra output
      if (job.getJobStatus().get().isGloballyTerminalState()) {
        job.getJobExecutionResult().get(); // throws with the job's failure
      }
    } finally {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get();
      }
    }
    return CollectingSink.values("enriched");
  }

  private static int enrichedCount() {
    return CollectingSink.values("enriched").size();
  }

  private void track(String eventId, String distinctId, Instant time) {
    tracking.add(new TrackingEvent(eventId, "p", distinctId, "viewed", time, Map.of()));
  }

  private void identify(String eventId, String distinctId, String userId, Instant time) {
    identity.add(
        new ReadIdentityEvent(
            new IdentityEvent(eventId, IdentityEvent.Type.IDENTIFY, "p", distinctId, userId, time),
            new SourcePosition("identity.events", 0, identity.size(), null)));
  }

  /** The identity table in the test's JVM; a write sets only the columns it names. */
  static final class InMemoryTable implements IdentityStore {
    static final Map<IdentityKey, IdentityRecord> ROWS = new ConcurrentHashMap<>();
    private long rows;

    @Override
    public Map<IdentityKey, IdentityRecord> get(Collection<IdentityKey> keys) {
      Map<IdentityKey, IdentityRecord> found = new HashMap<>();
      for (IdentityKey key : keys) {
        IdentityRecord row = ROWS.get(key);
        if (row != null) {
          found.put(key, copy(row, row.canonicalId(), row.earliestSeen(), row.identifySeen()));
        }
      }
      return found;
    }

    @Override
    public List<IdentityRecord> byCanonical(String projectId, String canonicalId, int limit) {
      return ROWS.values().stream()
          .filter(r -> r.projectId().equals(projectId) && r.canonicalId().equals(canonicalId))
          .limit(limit)
          .map(r -> copy(r, r.canonicalId(), r.earliestSeen(), r.identifySeen()))
          .toList();
    }

    @Override
    public synchronized Void write(Collection<IdentityRecord> records) {
      for (IdentityRecord r : records) {
        IdentityRecord was =
            ROWS.getOrDefault(r.key(), IdentityRecord.unseen(r.projectId(), r.distinctId()));
        Long earliest = was.earliestSeen();
        if (r.isChanged(IdentityRecord.Column.EARLIEST_SEEN) && r.earliestSeen() != null) {
          earliest = earliest == null ? r.earliestSeen() : Math.min(earliest, r.earliestSeen());
        }
        ROWS.put(
            r.key(),
            copy(
                was,
                r.isChanged(IdentityRecord.Column.CANONICAL_ID)
                    ? r.canonicalId()
                    : was.canonicalId(),
                earliest,
                r.isChanged(IdentityRecord.Column.IDENTIFY_SEEN)
                    ? r.identifySeen()
                    : was.identifySeen()));
      }
      rows += records.size();
      return null;
    }

    private static IdentityRecord copy(
        IdentityRecord r, String canonicalId, Long earliestSeen, boolean identifySeen) {
      return IdentityRecord.stored(
          r.projectId(),
          r.distinctId(),
          canonicalId,
          earliestSeen,
          identifySeen,
          r.aliasSeen(),
          r.peopleUpdateSeen(),
          r.updatedAt());
    }

    @Override
    public long rowsWritten() {
      return rows;
    }

    @Override
    public long statements() {
      return rows;
    }

    @Override
    public long columnsWritten() {
      return 0;
    }

    @Override
    public void close() {}
  }
}
