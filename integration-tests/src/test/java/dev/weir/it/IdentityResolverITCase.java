package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.identity.IdentityResolver;
import dev.weir.identity.MappingChange;
import dev.weir.identity.PostgresIdentityStore;
import dev.weir.identity.ReadIdentityEvent;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.IdentityEvent.Type;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * identify / alias / merge as the job runs them: the resolver in a test harness against the real
 * identity table in PostgreSQL. Asserts on the table, the mapping changes it tells the enricher,
 * the dead letters, and the statements sent.
 */
@ExtendWith(LocalStackExtension.class)
class IdentityResolverITCase {

  private static final Instant AT = Instant.parse("2026-11-21T08:00:00Z");
  private static final int MERGE_CAP = 4;
  private static final AtomicReference<PostgresIdentityStore> STORE = new AtomicReference<>();
  private static WeirConfig config;

  private KeyedOneInputStreamOperatorTestHarness<String, ReadIdentityEvent, MappingChange> harness;
  private int eventIds;

  @BeforeEach
  void open() throws Exception {
    config = TestDatabases.fresh(LocalStackExtension.config(), "it_resolver");
    harness = harness(null);
  }

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  @Test
  void identifyMovesTheWholeAnonymousClusterAndTellsTheEnricherOfEachId() throws Exception {
    apply(Type.ALIAS, "a1", "d1"); // a1 → d1 (d1 unseen: maps to itself)
    apply(Type.IDENTIFY, "d1", "user-1");

    assertThat(table())
        .containsExactlyInAnyOrder(
            "a1 → user-1 identify=false alias=true", "d1 → user-1 identify=true alias=false");
    assertThat(changes())
        .containsExactly("a1 → d1", "d1 → user-1", "a1 → user-1")
        .doesNotHaveDuplicates();
    assertThat(deadLetters()).isEmpty();
  }

  @Test
  void conflictingIdentifyAndAliasGoToTheDeadLettersWithTheReasonAndChangeNothing()
      throws Exception {
    apply(Type.IDENTIFY, "d1", "user-1");
    apply(Type.IDENTIFY, "d2", "user-2");
    List<String> before = table();
    long changesBefore = harness.extractOutputValues().size();

    apply(Type.IDENTIFY, "d1", "user-9");
    apply(Type.ALIAS, "d1", "d2"); // d1 already maps to user-1

    assertThat(deadLetters())
        .extracting(DeadLetter::reason)
        .containsExactly(
            "distinct_id 'd1' is already identified as 'user-1'; identify as 'user-9' rejected",
            "alias 'd1' already maps to 'user-1'; alias to 'd2' (user-2) rejected");
    assertThat(deadLetters())
        .allSatisfy(
            d -> {
              assertThat(d.job()).isEqualTo("identity");
              assertThat(d.sourceTopic()).isEqualTo("identity.events");
              assertThat(d.sourcePartition()).isEqualTo(2);
              assertThat(new String(d.rawValue())).contains("\"project_id\":\"p\"");
            });
    // Each names the record it was read from (the third and fourth events of this test).
    assertThat(deadLetters()).extracting(DeadLetter::sourceOffset).containsExactly(102L, 103L);
    assertThat(table()).isEqualTo(before);
    assertThat(harness.extractOutputValues()).hasSize((int) changesBefore);
  }

  @Test
  void mergeMovesTheClusterUpToTheCapAndRejectsALargerOne() throws Exception {
    apply(Type.IDENTIFY, "d1", "user-1");
    apply(Type.ALIAS, "a1", "d1");
    apply(Type.ALIAS, "a2", "d1");
    apply(Type.IDENTIFY, "d2", "user-2");

    // user-1's cluster: d1, a1, a2 and user-1 itself (4 = the cap).
    apply(Type.MERGE, "d1", "d2");
    assertThat(table())
        .containsExactlyInAnyOrder(
            "a1 → user-2 identify=false alias=true",
            "a2 → user-2 identify=false alias=true",
            "d1 → user-2 identify=true alias=false",
            "d2 → user-2 identify=true alias=false",
            "user-1 → user-2 identify=false alias=false");
    assertThat(changes()).endsWith("d1 → user-2", "user-1 → user-2", "a1 → user-2", "a2 → user-2");
    assertThat(deadLetters()).isEmpty();

    // user-2's cluster is now 6 ids, over the cap: rejected, nothing written, nothing told.
    apply(Type.IDENTIFY, "d3", "user-3");
    List<String> before = table();
    int changesBefore = harness.extractOutputValues().size();
    apply(Type.MERGE, "d2", "d3");
    assertThat(deadLetters())
        .singleElement()
        .satisfies(
            d ->
                assertThat(d.reason())
                    .isEqualTo(
                        "merge would move more than 4 distinct ids (cap identity.merge-cap = 4)"));
    assertThat(table()).isEqualTo(before);
    assertThat(harness.extractOutputValues()).hasSize(changesBefore);
  }

  @Test
  void replayingAfterARestoreWritesNothingAndChangesNothing() throws Exception {
    List<ReadIdentityEvent> events = new ArrayList<>();
    events.add(event(Type.ALIAS, "a1", "d1"));
    events.add(event(Type.IDENTIFY, "d1", "user-1"));
    events.add(event(Type.ALIAS, "a2", "d1"));
    events.add(event(Type.MERGE, "d3", "d1"));
    OperatorSubtaskState checkpoint = harness.snapshot(1, 1);
    for (ReadIdentityEvent e : events) {
      harness.processElement(new StreamRecord<>(e));
    }
    List<String> after = table();
    harness.close();

    // A crash after the writes, before the next checkpoint: the events come again.
    harness = harness(checkpoint);
    for (ReadIdentityEvent e : events) {
      harness.processElement(new StreamRecord<>(e));
    }
    assertThat(STORE.get().columnsWritten()).isZero(); // the new store counts from the restore
    assertThat(harness.extractOutputValues()).isEmpty();
    assertThat(deadLetters()).isEmpty();
    assertThat(table()).isEqualTo(after);
  }

  // --- helpers

  private KeyedOneInputStreamOperatorTestHarness<String, ReadIdentityEvent, MappingChange> harness(
      OperatorSubtaskState restoreFrom) throws Exception {
    IdentityResolver resolver =
        new IdentityResolver(
            () -> {
              PostgresIdentityStore store =
                  new PostgresIdentityStore(PostgresConnectionProvider.open(config));
              STORE.set(store);
              return store;
            },
            "identity",
            MERGE_CAP);
    var h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(resolver), ReadIdentityEvent::projectId, Types.STRING);
    h.setup();
    if (restoreFrom != null) {
      h.initializeState(restoreFrom);
    }
    h.open();
    return h;
  }

  /** The n-th event of the test, read from partition 2 of identity.events at offset 100 + n. */
  private ReadIdentityEvent event(Type type, String distinctId, String targetId) {
    int n = eventIds++;
    return new ReadIdentityEvent(
        new IdentityEvent("i" + n, type, "p", distinctId, targetId, AT),
        new SourcePosition("identity.events", 2, 100 + n, AT.toEpochMilli()));
  }

  private void apply(Type type, String distinctId, String targetId) throws Exception {
    harness.processElement(new StreamRecord<>(event(type, distinctId, targetId)));
  }

  private List<String> changes() {
    return harness.extractOutputValues().stream()
        .map(c -> c.distinctId() + " → " + c.canonicalId())
        .toList();
  }

  private List<DeadLetter> deadLetters() {
    var out = harness.getSideOutput(DeadLetters.TAG);
    return out == null ? List.of() : out.stream().map(StreamRecord::getValue).toList();
  }

  /** The identity table of project p, one line per row, ordered by distinct id. */
  private static List<String> table() throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT distinct_id, canonical_id, identify_seen, alias_seen FROM identity_mapping"
                        + " WHERE project_id = 'p' ORDER BY distinct_id")) {
      while (rs.next()) {
        rows.add(
            rs.getString(1)
                + " → "
                + rs.getString(2)
                + " identify="
                + rs.getBoolean(3)
                + " alias="
                + rs.getBoolean(4));
      }
    }
    return rows;
  }
}
