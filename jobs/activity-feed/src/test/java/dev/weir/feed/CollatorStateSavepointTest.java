package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.weir.common.types.StateThroughSavepoint;
import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.common.types.StateThroughSavepoint.Kind;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.Json;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.BackendStateType;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.CommonSerializerKeys;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The collator's state through a savepoint. A savepoint of each release restores into today's
 * collator (its fixture under {@code src/test/resources/collator-state/<release>/}, written by
 * {@link #writesTheFixtureOfThisRelease}; docs/state.md says when). State whose type changed
 * migrates on restore (an earlier weir kept a waiting event's details map and an entry's recent
 * details list through Kryo, today's {@link CollatorState#WAITING_EVENT} and {@link
 * CollatorState#ENTRY} do not), and keys written by Flink's POJO serializer are found.
 */
class CollatorStateSavepointTest extends CollatorTestBase {

  /** The releases with a savepoint fixture: each must restore, forever. */
  private static final List<String> RELEASES = List.of("0.1.0");

  /** Set to a release ({@code -Dweir.state-fixture=0.2.0}), the test writes its fixture. */
  private static final String WRITE_FIXTURE = "weir.state-fixture";

  static Stream<Arguments> releasesIntoEachBackend() {
    return RELEASES.stream()
        .flatMap(r -> Stream.of(Backend.values()).map(backend -> Arguments.of(r, backend)));
  }

  static List<String> releases() {
    return RELEASES;
  }

  /**
   * The scenario up to the fixture's savepoint, never to be changed (the fixtures of past releases
   * hold its state): a key with its open entry in state, shown with an event still waiting; and a
   * key that remembers more ids than its clock holds.
   */
  private void runUpToTheSavepoint() throws Exception {
    send("e1", 0, "push");
    send("e2", MIN, "push");
    for (int i = 0; i <= Clock.IDS_IN_CLOCK; i++) {
      send("s" + i, i * 1_000L, "starred");
    }
    watermark(2 * MIN);
    flushAt(1_000); // both entries written
    send("e3", 3 * MIN, "push"); // waits for the watermark
    flushAt(2_000); // and is shown: a provisional version in shown
  }

  @Test
  @EnabledIfSystemProperty(named = WRITE_FIXTURE, matches = "\\d+\\.\\d+\\.\\d+")
  void writesTheFixtureOfThisRelease() throws Exception {
    reopen(TypeInformation.of(CollationKey.class), Backend.ROCKSDB, null);
    runUpToTheSavepoint();
    OperatorSubtaskState savepoint =
        harness
            .snapshotWithLocalState(
                1, 2_000, SavepointType.savepoint(SavepointFormatType.CANONICAL))
            .getJobManagerOwnedState();
    Path file =
        Path.of(
            "src/test/resources/collator-state", System.getProperty(WRITE_FIXTURE), "savepoint");
    Files.createDirectories(file.getParent());
    OperatorSnapshotUtil.writeStateHandle(savepoint, file.toString());
  }

  @ParameterizedTest(name = "{0} into {1}")
  @MethodSource("releasesIntoEachBackend")
  void theSavepointOfAReleaseRestoresAndCarriesOn(String release, Backend backend)
      throws Exception {
    reopen(TypeInformation.of(CollationKey.class), backend, fixture(release));
    String open = FeedEntry.entryId(key("push"), T0.toEpochMilli(), "e1");
    String starred = FeedEntry.entryId(key("starred"), T0.toEpochMilli(), "s0");

    // Readable: each key's clock and state as the release wrote them.
    Clock push = clock(key("push"));
    assertThat(push.openEntryId).isEqualTo(open);
    assertThat(push.frontier).isEqualTo(T0.toEpochMilli() + MIN);
    assertThat(push.waiting).isEqualTo(1);
    assertThat(push.shown).isTrue();
    assertThat(push.seenIds).extracting(id -> id.eventId).containsExactly("e1", "e2", "e3");
    assertThat(clock(key("starred")).seenIds).isNull();
    assertThat(idsInSeen(key("starred"))).isEqualTo(Clock.IDS_IN_CLOCK + 1);

    // And it carries on: duplicates found in the clock and in seen, the waiting event released
    // by its restored timer confirms what was shown without another write.
    send("e2", MIN, "push");
    send("s5", 5_000, "starred");
    watermark(4 * MIN);
    flushAt(3_000);
    assertThat(harness.extractOutputValues()).isEmpty();
    assertThat(clock(key("push")).waiting).isZero();

    send("e4", 5 * MIN, "push");
    watermark(6 * MIN);
    flushAt(4_000);
    assertThat(harness.extractOutputValues())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.entry.entryId).isEqualTo(open);
              assertThat(w.created).isFalse();
              assertThat(w.entry.eventCount).isEqualTo(4);
              assertThat(w.changed)
                  .isEqualTo(FeedEntry.LAST_AT | FeedEntry.EVENT_COUNT | FeedEntry.RECENT_DETAILS);
            });

    // The entries' restored timers archive them ("starred" got none since), and nothing is left.
    watermark(Duration.ofDays(30).toMillis() + 6 * MIN);
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.ARCHIVE)
        .extracting(w -> w.entry.entryId, w -> w.entry.eventCount)
        .containsExactlyInAnyOrder(tuple(open, 4), tuple(starred, Clock.IDS_IN_CLOCK + 1));
    assertThat(clock(key("push"))).isNull();
    assertThat(clock(key("starred"))).isNull();
    assertThat(idsInSeen(key("starred"))).isZero();
  }

  /**
   * Every state of a release's savepoint is one today's collator declares, and today's serializer
   * reads what the release's wrote as it is: a change of layout must be a deliberate migration.
   */
  @ParameterizedTest
  @MethodSource("releases")
  void theSerializersOfAReleaseAreCompatibleAsIs(String release) throws Exception {
    Map<String, TypeSerializer<?>> today = new HashMap<>();
    for (StateDescriptor<?, ?> descriptor : CollatorState.DESCRIPTORS) {
      descriptor.initializeSerializerUnlessSet(new ExecutionConfig());
      today.put(descriptor.getName(), descriptor.getSerializer());
    }
    Set<String> states = new TreeSet<>();
    for (KeyedStateHandle handle : fixture(release).getManagedKeyedState()) {
      if (!(handle instanceof KeyGroupsStateHandle groups)) {
        throw new AssertionError("not a canonical savepoint's: " + handle);
      }
      KeyedBackendSerializationProxy<CollationKey> proxy =
          new KeyedBackendSerializationProxy<>(getClass().getClassLoader());
      try (FSDataInputStream in = groups.openInputStream()) {
        proxy.read(new DataInputViewStreamWrapper(in));
      }
      assertThat(compatibleAsIs(new CollationKeySerializer(), proxy.getKeySerializerSnapshot()))
          .as("the key")
          .isTrue();
      for (StateMetaInfoSnapshot state : proxy.getStateMetaInfoSnapshots()) {
        states.add(state.getName());
        if (state.getBackendStateType() == BackendStateType.KEY_VALUE) {
          assertThat(today).as("declared today").containsKey(state.getName());
          TypeSerializerSnapshot<?> written =
              state.getTypeSerializerSnapshot(CommonSerializerKeys.VALUE_SERIALIZER);
          assertThat(compatibleAsIs(today.get(state.getName()), written))
              .as(state.getName())
              .isTrue();
        }
      }
    }
    assertThat(states)
        .containsExactlyInAnyOrder(
            "waiting-events",
            "entries",
            "seen",
            "shown",
            "clock",
            "_timer_state/event_" + CollatorState.TIMERS,
            "_timer_state/processing_" + CollatorState.TIMERS);
  }

  @SuppressWarnings("unchecked")
  private static <T> boolean compatibleAsIs(
      TypeSerializer<T> today, TypeSerializerSnapshot<?> written) {
    return today
        .snapshotConfiguration()
        .resolveSchemaCompatibility((TypeSerializerSnapshot<T>) written)
        .isCompatibleAsIs();
  }

  private static OperatorSubtaskState fixture(String release) throws Exception {
    URL file =
        CollatorStateSavepointTest.class.getResource("/collator-state/" + release + "/savepoint");
    assertThat(file).as("the fixture of %s", release).isNotNull();
    return OperatorSnapshotUtil.readStateHandle(Path.of(file.toURI()).toString());
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void pendingEventsOfAnEarlierSavepointComeBackWithTheirDetails(Backend backend) throws Exception {
    assertThat(TypeInformation.of(WaitingEvent.class).toString())
        .contains("GenericType<java.util.Map>");
    List<WaitingEvent> pending =
        List.of(
            waiting("e1", "{\"pr\":12,\"title\":\"Fix ⛺\",\"labels\":[\"bug\"]}", false),
            waiting("e2", null, true));

    List<WaitingEvent> restored =
        StateThroughSavepoint.restore(
            pending,
            TypeInformation.of(WaitingEvent.class),
            CollatorState.WAITING_EVENT,
            Kind.MAP_VALUES, // as the Collator keeps them
            backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().isEqualTo(pending);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void entriesOfAnEarlierSavepointComeBackWithTheirRecentDetails(Backend backend) throws Exception {
    assertThat(TypeInformation.of(FeedEntry.class).toString())
        .contains("recentDetails: GenericType<java.util.List>");
    assertThat(CollatorState.ENTRY.toString()).doesNotContain("GenericType");
    FeedEntry entry =
        FeedEntry.open(CollationKey.of(waiting("e1", null, false).event), 1_000, "e1");
    entry.addDetail(FeedEntry.Detail.of(waiting("e1", "{\"pr\":12}", false).event), 3);
    entry.addDetail(FeedEntry.Detail.of(waiting("e2", "{\"pr\":13}", false).event), 3);
    entry.stored = true;
    List<FeedEntry> entries = List.of(entry, FeedEntry.keyOnly("acme", "other"));

    List<FeedEntry> restored =
        StateThroughSavepoint.restore(
            entries,
            TypeInformation.of(FeedEntry.class),
            CollatorState.ENTRY,
            Kind.MAP_VALUES,
            backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().isEqualTo(entries);
    assertThat(restored.get(0).recentDetails).hasSize(2);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aSavepointKeyedByThePojoSerializerRestores(Backend backend) throws Exception {
    // Before CollationKeySerializer, Flink's POJO serializer wrote the keys: RocksDB finds a
    // key's state and its timers by those bytes.
    reopen(CollationKeySerializer.pojoType(), backend, null);
    send("e1", 0, "push");
    watermark(MIN);
    flushAt(1_000);
    send("e2", 2 * MIN, "push"); // waits for the watermark: a release timer
    var savepoint = harness.snapshot(1, 1_000);

    reopen(TypeInformation.of(CollationKey.class), backend, savepoint);
    send("e1", 0, "push"); // the replay: a duplicate only if the key's state was found
    watermark(3 * MIN); // fires the restored timer, which releases e2
    flushAt(2_000);

    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(2));
  }

  private static WaitingEvent waiting(String id, String details, boolean overtaken)
      throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = details == null ? null : Json.mapper().readValue(details, Map.class);
    WaitingEvent p =
        new WaitingEvent(
            new ActivityEvent(
                id,
                "acme",
                "ana",
                "repository",
                "acme/weir",
                "starred",
                Instant.parse("2026-11-23T05:00:00Z"),
                map),
            1_000);
    p.overtaken = overtaken;
    return p;
  }
}
