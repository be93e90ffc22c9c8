package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.schema.ActivityEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CollatorTest {

  private static final Instant T0 = Instant.parse("2021-07-21T06:00:00Z");
  private static final long MIN = 60_000;

  /**
   * gap 10 min, max span 1 h, out-of-orderness 5 s, staleness 2 s (emit every 1 s), archive after
   * 30 d, 3 details, ids remembered for 1 d, 10,000 keys held.
   */
  static final FeedSettings SETTINGS =
      new FeedSettings(
          10 * MIN,
          60 * MIN,
          5_000,
          2_000,
          Duration.ofDays(30).toMillis(),
          3,
          Duration.ofDays(1).toMillis(),
          10_000);

  private KeyedOneInputStreamOperatorTestHarness<CollationKey, ActivityEvent, FeedWrite> harness;

  @BeforeEach
  void open() throws Exception {
    harness = harness(SETTINGS);
  }

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  @Test
  void eventsWithinTheGapFormOneEntryAndALongerGapOpensAnother() throws Exception {
    send("e1", 0, "push");
    send("e2", 5 * MIN, "push");
    send("e3", 15 * MIN + 1, "push"); // 10 min + 1 ms after e2
    watermark(20 * MIN);
    flushAt(1_000);

    Map<String, FeedEntry> entries = latestEntries();
    assertThat(entries.values()).extracting(e -> e.eventCount).containsExactlyInAnyOrder(2, 1);
    FeedEntry first = entries.get(FeedEntry.entryId(key("push"), T0.toEpochMilli(), "e1"));
    assertThat(first.firstAt).isEqualTo(T0.toEpochMilli());
    assertThat(first.lastAt).isEqualTo(T0.toEpochMilli() + 5 * MIN);
    assertThat(entries)
        .containsKey(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 15 * MIN + 1, "e3"));
  }

  /**
   * Issue 27: an event-time and a processing-time timer per event made RocksDB's timer queue the
   * largest cost of the collate thread. The waiting events of a key share one timer of each kind.
   */
  @Test
  void waitingEventsOfAKeyShareOneTimerOfEachKind() throws Exception {
    for (int i = 0; i < 50; i++) {
      send("burst-" + i, i * 1_000L, "push");
    }
    // One release timer, not one per event (no entry is open before the watermark passes).
    assertThat(harness.numEventTimeTimers()).isEqualTo(1);
    assertThat(harness.numProcessingTimeTimers()).isLessThanOrEqualTo(2);

    watermark(30_000);
    // The first 31 applied: the entry's archive timer, and the release timer set again at the
    // next waiting event.
    assertThat(harness.numEventTimeTimers()).isEqualTo(2);
    watermark(60_000);
    flushAt(1_000);
    assertThat(latestEntries().values()).extracting(e -> e.eventCount).containsExactly(50);
  }

  @Test
  void theWholeSpanIsBoundedByMaxSpan() throws Exception {
    for (int i = 0; i <= 8; i++) {
      send("e" + i, i * 9 * MIN, "push"); // every 9 min: each within the gap, 72 min in all
    }
    watermark(80 * MIN);
    flushAt(1_000);
    List<FeedEntry> entries = new ArrayList<>(latestEntries().values());
    entries.sort((a, b) -> Long.compare(a.firstAt, b.firstAt));
    assertThat(entries)
        .extracting(e -> e.eventCount)
        .containsExactly(7, 2); // 0..54 min, then 63..72 min
    assertThat(entries.get(0).lastAt - entries.get(0).firstAt).isLessThanOrEqualTo(60 * MIN);
  }

  @Test
  void differentActionsNeverCollate() throws Exception {
    send("e1", 0, "push");
    send("e2", MIN, "pull_request.opened");
    watermark(2 * MIN);
    flushAt(1_000);
    assertThat(latestEntries()).hasSize(2);
  }

  @Test
  void aDuplicatedEventIdCountsOnce() throws Exception {
    send("e1", 0, "push");
    send("e1", 0, "push");
    watermark(MIN);
    send("e1", 0, "push"); // again, after it was applied
    flushAt(1_000);
    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(1));
  }

  @Test
  void disorderWithinTheBoundGivesTheSameEntriesAsSortedInput() throws Exception {
    List<long[]> times = new ArrayList<>();
    long t = 0;
    Random random = new Random(7);
    for (int i = 0; i < 60; i++) {
      t += random.nextInt(4) == 0 ? 11 * MIN : random.nextInt(3 * (int) MIN);
      times.add(new long[] {i, t});
    }
    Map<String, FeedEntry> sorted = runWatermarked(times, 0);

    List<long[]> shuffled = new ArrayList<>(times);
    // Swap neighbours whose times are within the 5 s bound of each other, and shuffle small runs.
    for (int i = 0; i + 1 < shuffled.size(); i += 2) {
      Collections.swap(shuffled, i, i + 1);
    }
    close();
    harness = harness(SETTINGS);
    Map<String, FeedEntry> disordered = runWatermarked(shuffled, 5_000);

    assertThat(disordered.keySet()).isEqualTo(sorted.keySet());
    disordered.forEach(
        (id, e) -> {
          assertThat(e.eventCount).isEqualTo(sorted.get(id).eventCount);
          assertThat(e.firstAt).isEqualTo(sorted.get(id).firstAt);
          assertThat(e.lastAt).isEqualTo(sorted.get(id).lastAt);
        });
  }

  @Test
  void waitingEventsAreShownWithinTheStalenessBoundThenConfirmedWithoutAnotherWrite()
      throws Exception {
    send("e2", 10_000, "push");
    send("e1", 6_000, "push"); // out of order, within the bound
    assertThat(harness.numEventTimeTimers()).isEqualTo(2); // they wait for the watermark
    flushAt(1_000); // half the staleness bound, with no watermark yet
    FeedEntry shown = latestEntries().values().iterator().next();
    // Shown as the ordered input will have it: e1 opened the entry.
    assertThat(shown.entryId)
        .isEqualTo(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 6_000, "e1"));
    assertThat(shown.eventCount).isEqualTo(2);

    watermark(10_000); // now applied in order: the same entry, so it is not written again
    flushAt(2_000);
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.UPSERT)
        .hasSize(1);
    // e2 was overtaken by e1, so it might have been shown opening an entry before a crash that
    // state forgot: its possible entry is retracted, an idempotent DELETE.
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.RETRACT)
        .extracting(w -> w.entry.entryId)
        .containsExactly(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10_000, "e2"));
    send("e3", 11_000, "push");
    flushAt(3_000);
    assertThat(harness.extractOutputValues())
        .last()
        .satisfies(
            w -> {
              assertThat(w.created).isFalse();
              assertThat(w.entry.eventCount).isEqualTo(3);
              assertThat(w.changed)
                  .isEqualTo(FeedEntry.LAST_AT | FeedEntry.EVENT_COUNT | FeedEntry.RECENT_DETAILS);
            });
  }

  /**
   * Issue 27: a patience timer per key that fired after the watermark had released its events
   * (replay speed, or any input faster than the bound) read the key's clock for nothing. The flush,
   * due first, sets it only for events still waiting.
   */
  @Test
  void eventsReleasedBeforeTheirFlushNeedNoPatienceTimer() throws Exception {
    for (int i = 0; i < 5; i++) {
      send("burst-" + i, i * 1_000L, "push");
    }
    assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // the flush
    watermark(10_000);
    flushAt(1_000);
    assertThat(harness.numProcessingTimeTimers()).isZero();
    assertThat(latestEntries().values()).extracting(e -> e.eventCount).containsExactly(5);
  }

  @Test
  void whenTheWatermarkStallsEventsAreAppliedAfterWaitingTheBound() throws Exception {
    send("e1", 0, "push");
    harness.setProcessingTime(1_000); // shown
    assertThat(latestEntries()).hasSize(1);
    assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // patience, set by the flush
    harness.setProcessingTime(5_100); // waited 5 s: applied without a watermark
    harness.setProcessingTime(6_200); // the ordered entry equals what was shown
    assertThat(harness.extractOutputValues()).hasSize(1);
    assertThat(harness.numEventTimeTimers()).isEqualTo(2); // its own, and the archive timer
  }

  @Test
  void aProvisionalEntryThatTheOrderedInputMergesAwayIsRetracted() throws Exception {
    send("e1", 0, "push");
    watermark(MIN);
    flushAt(1_000);
    send("e3", 10 * MIN + 3_000, "push"); // beyond the gap after e1: shown as a new entry
    flushAt(2_000);
    String e3Entry = FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10 * MIN + 3_000, "e3");
    assertThat(latestEntries()).hasSize(2).containsKey(e3Entry);

    send("e2", 9 * MIN, "push"); // earlier, within the bound: bridges the gap
    flushAt(3_000);
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.RETRACT)
        .singleElement()
        .satisfies(w -> assertThat(w.entry.entryId).isEqualTo(e3Entry));
    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(3));

    int before = harness.extractOutputValues().size();
    watermark(11 * MIN); // applied in order: confirms what is shown
    flushAt(4_000);
    assertThat(harness.extractOutputValues().subList(before, harness.extractOutputValues().size()))
        .allMatch(w -> w.kind == FeedWrite.Kind.RETRACT); // only the idempotent safety retraction
    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(3));
    assertThat(harness.numKeyedStateEntries()).isPositive();
  }

  @Test
  void aProvisionalEntryShownBeforeACrashIsRetractedAfterTheReplay() throws Exception {
    send("e1", 0, "push");
    watermark(MIN);
    flushAt(1_000);
    var checkpoint = harness.snapshot(1, 1_000);
    send("e3", 10 * MIN + 3_000, "push"); // shown as a new entry, then the job dies
    flushAt(2_000);
    String e3Entry = FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10 * MIN + 3_000, "e3");
    assertThat(latestEntries()).containsKey(e3Entry);
    harness.close();

    // Restored from the checkpoint, which knows nothing of e3; the replay brings e2 in between.
    harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new CollatorOperator(new Collator(SETTINGS)),
            CollationKey::of,
            TypeInformation.of(CollationKey.class));
    harness.setProcessingTime(1_000);
    harness.initializeState(checkpoint);
    harness.open();
    send("e3", 10 * MIN + 3_000, "push");
    send("e2", 9 * MIN, "push");
    watermark(11 * MIN);
    flushAt(2_000);

    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.RETRACT)
        .extracting(w -> w.entry.entryId)
        .containsExactly(e3Entry);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aSavepointKeyedByThePojoSerializerRestores(Backend backend) throws Exception {
    // Before CollationKeySerializer, Flink's POJO serializer wrote the keys: RocksDB finds a
    // key's state and its timers by those bytes.
    harness.close();
    harness = harness(SETTINGS, CollationKeySerializer.pojoType(), backend);
    send("e1", 0, "push");
    watermark(MIN);
    flushAt(1_000);
    send("e2", 2 * MIN, "push"); // waits for the watermark: a release timer
    var savepoint = harness.snapshot(1, 1_000);
    harness.close();

    harness = harness(SETTINGS, TypeInformation.of(CollationKey.class), backend, savepoint);
    send("e1", 0, "push"); // the replay: a duplicate only if the key's state was found
    watermark(3 * MIN); // fires the restored timer, which releases e2
    flushAt(2_000);

    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(2));
  }

  @Test
  void aLateEventMergesIntoTheEntryItFitsOrGetsItsOwn() throws Exception {
    send("e1", 10 * MIN, "push");
    send("e2", 12 * MIN, "push");
    watermark(13 * MIN);
    send("late-fits", 5 * MIN, "push"); // before the entry, within the gap: merged
    send("late-alone", -2 * 60 * MIN, "push"); // two hours earlier: an entry of its own
    flushAt(1_000);

    Map<String, FeedEntry> entries = latestEntries();
    assertThat(entries).hasSize(2);
    FeedEntry main =
        entries.get(FeedEntry.entryId(key("push"), T0.toEpochMilli() + 10 * MIN, "e1"));
    assertThat(main.eventCount).isEqualTo(3);
    assertThat(main.firstAt).isEqualTo(T0.toEpochMilli() + 5 * MIN);
    assertThat(entries)
        .containsKey(FeedEntry.entryId(key("push"), T0.toEpochMilli() - 120 * MIN, "late-alone"));

    // The open entry stayed open: the next in-order event joins it.
    send("e3", 14 * MIN, "push");
    watermark(15 * MIN);
    flushAt(2_000);
    assertThat(latestEntries().get(main.entryId).eventCount).isEqualTo(4);
  }

  @Test
  void aBurstIsCoalescedIntoFewWritesNamingOnlyChangedColumns() throws Exception {
    for (int i = 0; i < 100; i++) {
      send("e" + i, i * 1_000L, "push");
    }
    watermark(100_000);
    flushAt(1_000);
    assertThat(harness.extractOutputValues())
        .singleElement()
        .satisfies(w -> assertThat(w.created).isTrue());

    send("e100", 101_000, "push");
    watermark(102_000);
    flushAt(2_000);
    List<FeedWrite> writes = harness.extractOutputValues();
    assertThat(writes).hasSize(2);
    FeedWrite update = writes.get(1);
    assertThat(update.created).isFalse();
    assertThat(update.changed)
        .isEqualTo(FeedEntry.LAST_AT | FeedEntry.EVENT_COUNT | FeedEntry.RECENT_DETAILS);
    assertThat(update.entry.recentDetails)
        .hasSize(3)
        .first()
        .satisfies(d -> assertThat(d.eventId).isEqualTo("e100"));
  }

  @Test
  void anEntryIsArchivedByItsTimerAndLeavesNoStateBehind() throws Exception {
    send("e1", 0, "push");
    send("e2", MIN, "push");
    watermark(2 * MIN);
    flushAt(1_000);
    assertThat(harness.numEventTimeTimers()).isEqualTo(1); // the archive timer
    long archiveAt = T0.toEpochMilli() + MIN + Duration.ofDays(30).toMillis();

    harness.processWatermark(archiveAt - 1);
    assertThat(harness.extractOutputValues()).noneMatch(w -> w.kind == FeedWrite.Kind.ARCHIVE);

    harness.processWatermark(archiveAt);
    List<FeedWrite> archived =
        harness.extractOutputValues().stream()
            .filter(w -> w.kind == FeedWrite.Kind.ARCHIVE)
            .toList();
    assertThat(archived)
        .singleElement()
        .satisfies(w -> assertThat(w.entry.eventCount).isEqualTo(2));
    assertThat(harness.numKeyedStateEntries()).isZero();
    assertThat(harness.numEventTimeTimers()).isZero();

    // Its ids left with it: the same id now is a new event (documented), not a silent drop.
    send("e1", 0, "push");
    harness.processWatermark(archiveAt + 1);
    assertThat(harness.extractOutputValues().stream().filter(w -> w.kind == FeedWrite.Kind.ARCHIVE))
        .hasSize(2);
  }

  private <T> T valueState(CollationKey key, String name, TypeInformation<T> type)
      throws Exception {
    return onKey(key, () -> valueStateOf(name, type).value());
  }

  private <T> void setValueState(CollationKey key, String name, TypeInformation<T> type, T value)
      throws Exception {
    onKey(
        key,
        () -> {
          if (value == null) {
            valueStateOf(name, type).clear();
          } else {
            valueStateOf(name, type).update(value);
          }
          return null;
        });
  }

  private <T> ValueState<T> valueStateOf(String name, TypeInformation<T> type) throws Exception {
    KeyedStateBackend<CollationKey> backend =
        ((AbstractStreamOperator<FeedWrite>) harness.getOperator()).getKeyedStateBackend();
    return backend.getPartitionedState(
        VoidNamespace.INSTANCE,
        VoidNamespaceSerializer.INSTANCE,
        new ValueStateDescriptor<>(name, type));
  }

  /** Keyed state as a checkpoint takes it: the clocks the collator holds written back first. */
  private <T> T onKey(CollationKey key, java.util.concurrent.Callable<T> action) throws Exception {
    ((Collator) ((CollatorOperator) harness.getOperator()).getUserFunction()).flushClocks();
    KeyedStateBackend<CollationKey> backend =
        ((AbstractStreamOperator<FeedWrite>) harness.getOperator()).getKeyedStateBackend();
    CollationKey current = backend.getCurrentKey();
    backend.setCurrentKey(key);
    try {
      return action.call();
    } finally {
      if (current != null) {
        backend.setCurrentKey(current);
      }
    }
  }

  @Test
  void anEventOlderThanTheArchiveAgeIsArchivedEvenIfTheWatermarkNeverMovesAgain() throws Exception {
    watermark(Duration.ofDays(40).toMillis());
    send("e1", 0, "push"); // 40 days behind the watermark, and then the input pauses
    harness.setProcessingTime(5_100); // waited the bound: applied, and already due for the archive
    assertThat(harness.extractOutputValues())
        .filteredOn(w -> w.kind == FeedWrite.Kind.ARCHIVE)
        .singleElement()
        .satisfies(w -> assertThat(w.entry.eventCount).isEqualTo(1));
    harness.setProcessingTime(10_000);
    assertThat(latestEntries()).isEmpty();
    assertThat(harness.numKeyedStateEntries()).isZero();
  }

  @Test
  void anEntryThatGrewIsArchivedFromItsNewLastEvent() throws Exception {
    send("e1", 0, "push");
    watermark(MIN);
    send("e2", 5 * MIN, "push");
    watermark(6 * MIN);
    harness.processWatermark(
        T0.toEpochMilli() + Duration.ofDays(30).toMillis() + MIN); // first timer: not due
    assertThat(harness.extractOutputValues()).noneMatch(w -> w.kind == FeedWrite.Kind.ARCHIVE);
    assertThat(harness.numEventTimeTimers()).isEqualTo(1); // set again for the new last event
    harness.processWatermark(T0.toEpochMilli() + Duration.ofDays(30).toMillis() + 5 * MIN);
    assertThat(harness.extractOutputValues()).anyMatch(w -> w.kind == FeedWrite.Kind.ARCHIVE);
  }

  @Test
  void aKeyThatNeverPausesRemembersTheIdsOfOneDedupeWindowOnly() throws Exception {
    // A bot: one event a minute for 3 days. Without forgetting, the key would hold 4,320 ids
    // until the first entry is archived 30 days later.
    int events = 3 * 24 * 60;
    int mostRemembered = 0;
    for (int i = 0; i < events; i++) {
      send("e" + i, i * MIN, "push");
      watermark(i * MIN - 5_000);
      mostRemembered = Math.max(mostRemembered, rememberedIds(key("push")));
    }
    // The ids of entries whose last event is within a day of the watermark: one day of events,
    // plus at most one entry's span (1 h) that started before it.
    assertThat(mostRemembered).isBetween(24 * 60, 25 * 60 + 1);
    // One timer per entry (72 hourly entries) and at most the one per waiting event: not per id.
    assertThat(harness.numEventTimeTimers()).isLessThanOrEqualTo(3 * 24 + 6);

    // Within the window a duplicate still counts once; after it, it counts again (documented).
    send("e" + (events - 1), (events - 1) * MIN, "push");
    send("e0", 0, "push");
    watermark(events * MIN);
    flushAt(1_000);
    assertThat(latestEntries().values().stream().mapToInt(e -> e.eventCount).sum())
        .isEqualTo(events + 1);
  }

  /**
   * A key keeps its first {@value Collator#IDS_IN_CLOCK} ids in its clock (read with it: no state
   * call of its own per event); beyond that they all move to seen, and duplicates are found in both
   * places.
   */
  @Test
  void idsStayInTheClockUntilTheyAreManyThenMoveToSeen() throws Exception {
    for (int i = 0; i < Collator.IDS_IN_CLOCK; i++) {
      send("e" + i, i * 1_000L, "push");
    }
    send("e3", 3_000, "push"); // a duplicate found in the clock
    assertThat(valueState(key("push"), "clock", Collator.CLOCK).seenIds)
        .hasSize(Collator.IDS_IN_CLOCK);
    assertThat(idsInSeen(key("push"))).isZero();

    send("e" + Collator.IDS_IN_CLOCK, Collator.IDS_IN_CLOCK * 1_000L, "push");
    assertThat(valueState(key("push"), "clock", Collator.CLOCK).seenIds).isNull();
    assertThat(idsInSeen(key("push"))).isEqualTo(Collator.IDS_IN_CLOCK + 1);
    send("e3", 3_000, "push"); // found in seen
    send("e" + Collator.IDS_IN_CLOCK, Collator.IDS_IN_CLOCK * 1_000L, "push");

    watermark(MIN);
    flushAt(1_000);
    assertThat(latestEntries().values())
        .extracting(e -> e.eventCount)
        .containsExactly(Collator.IDS_IN_CLOCK + 1);
  }

  /**
   * Ids in seen (a key that remembered more than its clock holds) are forgotten by the entry that
   * spans their time; the ids of waiting events are kept.
   */
  @Test
  void idsInSeenAreForgottenByTheirEntryAndWaitingOnesKept() throws Exception {
    send("e1", 0, "push");
    send("e2", MIN, "push");
    watermark(2 * MIN);
    KeyedStateBackend<CollationKey> backend =
        ((AbstractStreamOperator<FeedWrite>) harness.getOperator()).getKeyedStateBackend();
    // Moved from the clock to seen, as a 17th id would move them.
    Collator.Clock clock = valueState(key("push"), "clock", Collator.CLOCK);
    assertThat(clock.seenIds).extracting(id -> id.eventId).containsExactly("e1", "e2");
    assertThat(idsInSeen(key("push"))).isZero();
    List<Collator.SeenId> ids = clock.seenIds;
    clock.seenIds = null;
    setValueState(key("push"), "clock", Collator.CLOCK, clock);
    onKey(
        key("push"),
        () -> {
          MapState<String, Long> seen =
              backend.getPartitionedState(
                  VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, Collator.SEEN);
          for (Collator.SeenId id : ids) {
            seen.put(id.eventId, id.at);
          }
          assertThat(seen.get("e1")).isEqualTo(T0.toEpochMilli());
          return null;
        });
    send("e3", 2 * 24 * 60 * MIN, "push"); // waits: the watermark is before it
    watermark(2 * 24 * 60 * MIN - 1); // a day past the entry's last event: its ids forgotten

    // e3, waiting, and e2: at the frontier, where a waiting event may still be, so kept.
    assertThat(rememberedIds(key("push"))).isEqualTo(2);
    send("e1", 0, "push"); // no longer a duplicate: it comes more than a day late
    send("e3", 2 * 24 * 60 * MIN, "push"); // still one
    watermark(2 * 24 * 60 * MIN + 1);
    flushAt(1_000);
    assertThat(latestEntries().values().stream().mapToInt(e -> e.eventCount).sum()).isEqualTo(4);
  }

  @Test
  void theEndOfABoundedInputWritesEverythingAndArchivesNothing() throws Exception {
    send("e1", 0, "push");
    send("e2", 1_000, "push");
    harness.processWatermark(Long.MAX_VALUE); // no processing time passes
    List<FeedWrite> writes = harness.extractOutputValues();
    assertThat(writes)
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.kind).isEqualTo(FeedWrite.Kind.UPSERT);
              assertThat(w.entry.eventCount).isEqualTo(2);
            });
  }

  // --- helpers

  private Map<String, FeedEntry> runWatermarked(List<long[]> events, long outOfOrderness)
      throws Exception {
    long maxSeen = Long.MIN_VALUE;
    for (long[] e : events) {
      send("e" + e[0], e[1], "push");
      maxSeen = Math.max(maxSeen, e[1]);
      harness.processWatermark(T0.toEpochMilli() + maxSeen - outOfOrderness - 1);
    }
    watermark(maxSeen + 1);
    flushAt(1_000);
    return latestEntries();
  }

  private static KeyedOneInputStreamOperatorTestHarness<CollationKey, ActivityEvent, FeedWrite>
      harness(FeedSettings settings) throws Exception {
    return harness(settings, TypeInformation.of(CollationKey.class), Backend.HEAP);
  }

  private static KeyedOneInputStreamOperatorTestHarness<CollationKey, ActivityEvent, FeedWrite>
      harness(FeedSettings settings, TypeInformation<CollationKey> keyType, Backend backend)
          throws Exception {
    var h = harness(settings, keyType, backend, null);
    h.setProcessingTime(0);
    return h;
  }

  /** Restored from {@code state} if given; RocksDB with its timers in it, as the job deploys it. */
  private static KeyedOneInputStreamOperatorTestHarness<CollationKey, ActivityEvent, FeedWrite>
      harness(
          FeedSettings settings,
          TypeInformation<CollationKey> keyType,
          Backend backend,
          OperatorSubtaskState state)
          throws Exception {
    var h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new CollatorOperator(new Collator(settings)), CollationKey::of, keyType);
    if (backend == Backend.ROCKSDB) {
      h.setStateBackend(new EmbeddedRocksDBStateBackend());
    }
    if (state != null) {
      h.setProcessingTime(1_000);
      h.initializeState(state);
    }
    h.open();
    return h;
  }

  private void send(String id, long offsetMs, String action) throws Exception {
    Instant at = T0.plusMillis(offsetMs);
    harness.processElement(
        new ActivityEvent(
            id, "acme", "ana", "repository", "acme/weir", action, at, Map.of("n", id)),
        at.toEpochMilli());
  }

  private void watermark(long offsetMs) throws Exception {
    harness.processWatermark(T0.toEpochMilli() + offsetMs);
  }

  private void flushAt(long processingTime) throws Exception {
    harness.setProcessingTime(processingTime);
  }

  /** How many event ids the key's state holds for deduplication: in its clock and in seen. */
  private int rememberedIds(CollationKey key) throws Exception {
    Collator.Clock clock = valueState(key, "clock", Collator.CLOCK);
    int inClock = clock == null || clock.seenIds == null ? 0 : clock.seenIds.size();
    return inClock + idsInSeen(key);
  }

  private int idsInSeen(CollationKey key) throws Exception {
    KeyedStateBackend<CollationKey> backend =
        ((AbstractStreamOperator<FeedWrite>) harness.getOperator()).getKeyedStateBackend();
    CollationKey current = backend.getCurrentKey();
    backend.setCurrentKey(key);
    MapState<String, Long> seen =
        backend.getPartitionedState(
            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, Collator.SEEN);
    int n = 0;
    for (String ignored : seen.keys()) {
      n++;
    }
    if (current != null) {
      backend.setCurrentKey(current);
    }
    return n;
  }

  private static CollationKey key(String action) {
    return new CollationKey("acme", "ana", "repository", "acme/weir", action);
  }

  /** The last written state of every entry (what the store would hold). */
  private Map<String, FeedEntry> latestEntries() {
    Map<String, FeedEntry> entries = new LinkedHashMap<>();
    for (FeedWrite w : harness.extractOutputValues()) {
      if (w.kind == FeedWrite.Kind.UPSERT) {
        entries.put(w.entry.entryId, w.entry);
      } else {
        entries.remove(w.entry.entryId);
      }
    }
    return entries;
  }
}
