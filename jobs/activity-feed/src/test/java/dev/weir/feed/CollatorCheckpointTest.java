package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.ActivityEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint taken and restored halfway changes nothing the collator emits: with what it holds
 * between checkpoints ({@link ClockStore}) against reading and writing RocksDB in every call, and
 * with timers that move from the heap to RocksDB.
 */
class CollatorCheckpointTest {

  private static final long MIN = 60_000;
  private static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  /** gap 10 min, max span 1 h, out-of-orderness 5 s, staleness 2 s. */
  private static final FeedSettings SETTINGS = CollatorTestBase.SETTINGS;

  @Test
  void heldClocksAndWaitingEventsChangeNoWriteAcrossARestoredCheckpoint() throws Exception {
    List<String> direct = run(() -> new Collator(SETTINGS, 0));
    assertThat(direct).hasSizeGreaterThan(100);
    // All keys held until the checkpoint; and one key held at a time, written back at every
    // other key's event.
    assertThat(run(() -> new Collator(SETTINGS))).containsExactlyElementsOf(direct);
    assertThat(run(() -> new Collator(SETTINGS, 1))).containsExactlyElementsOf(direct);
  }

  @Test
  void aCheckpointWithHeapTimersRestoresWithTimersInRocksDb() throws Exception {
    // A cluster that ran with heap timers (state.backend.rocksdb.timer-service.factory: HEAP)
    // and goes back to RocksDB's: its checkpoint holds the timers in the heap's format, and each
    // must still fire. The two queues fire timers due at the same time in another order of keys,
    // so the writes are compared entry by entry.
    List<String> direct = run(() -> new Collator(SETTINGS, 0));
    List<String> restored =
        run(
            () -> new Collator(SETTINGS),
            PriorityQueueStateType.HEAP,
            PriorityQueueStateType.ROCKSDB);
    assertThat(byEntry(restored)).isEqualTo(byEntry(direct));
    assertThat(byEntry(direct)).hasSizeGreaterThan(50);
  }

  /** Each entry's writes, in the order it got them. */
  private static Map<String, List<String>> byEntry(List<String> writes) {
    Map<String, List<String>> byEntry = new TreeMap<>();
    for (String w : writes) {
      Matcher entry = ENTRY_ID.matcher(w);
      assertThat(entry.find()).as(w).isTrue();
      byEntry.computeIfAbsent(entry.group(1), k -> new ArrayList<>()).add(w);
    }
    return byEntry;
  }

  private static final Pattern ENTRY_ID = Pattern.compile("changed=\\d+ (\\w+)\\[");

  /**
   * 600 events of 8 keys in bursts, some out of order within the bound, some sent twice; the
   * watermark 5 s behind; a checkpoint after 300, then a fresh operator restored from it.
   */
  private static List<String> run(
      Supplier<OneInputStreamOperator<ActivityEvent, FeedWrite>> operator) throws Exception {
    return run(operator, PriorityQueueStateType.ROCKSDB, PriorityQueueStateType.ROCKSDB);
  }

  /** With timers in {@code timersBefore} until the checkpoint, in {@code timersAfter} from it. */
  private static List<String> run(
      Supplier<OneInputStreamOperator<ActivityEvent, FeedWrite>> operator,
      PriorityQueueStateType timersBefore,
      PriorityQueueStateType timersAfter)
      throws Exception {
    Random random = new Random(27);
    List<String> writes = new ArrayList<>();
    var harness = harness(operator.get(), timersBefore, null);
    long time = 0;
    long processing = 0;
    List<ActivityEvent> sent = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      if (i == 300) {
        OperatorSubtaskState checkpoint = harness.snapshot(1, processing);
        writes.addAll(writes(harness));
        harness.close();
        harness = harness(operator.get(), timersAfter, checkpoint);
        harness.setProcessingTime(processing);
      }
      time += random.nextInt(4) == 0 ? 11 * MIN : random.nextInt(20_000);
      long at = time - (random.nextInt(5) == 0 ? random.nextInt(4_000) : 0);
      ActivityEvent event =
          random.nextInt(20) == 0 && !sent.isEmpty()
              ? sent.get(random.nextInt(sent.size()))
              : event("e" + i, "key-" + random.nextInt(8), at);
      sent.add(event);
      harness.processElement(event, event.occurredAt().toEpochMilli());
      processing += 300;
      harness.setProcessingTime(processing);
      if (i % 10 == 9) {
        harness.processWatermark(T0.toEpochMilli() + time - 5_000);
      }
    }
    harness.processWatermark(Long.MAX_VALUE);
    harness.setProcessingTime(processing + 60_000);
    writes.addAll(writes(harness));
    harness.close();
    return writes;
  }

  private static List<String> writes(
      KeyedOneInputStreamOperatorTestHarness<CollationKey, ActivityEvent, FeedWrite> harness) {
    List<String> out = new ArrayList<>();
    for (FeedWrite w : harness.extractOutputValues()) {
      out.add(
          w.kind
              + " created="
              + w.created
              + " changed="
              + w.changed
              + " "
              + w.entry
              + " "
              + w.entry.recentDetailsJson());
    }
    harness.getOutput().clear();
    return out;
  }

  private static ActivityEvent event(String id, String element, long offsetMs) {
    Instant at = T0.plusMillis(offsetMs);
    return new ActivityEvent(id, "acme", "ana", "repository", element, "push", at, Map.of("n", id));
  }

  /** RocksDB with its timers in {@code timers}; restored from {@code state} if given. */
  private static KeyedOneInputStreamOperatorTestHarness<CollationKey, ActivityEvent, FeedWrite>
      harness(
          OneInputStreamOperator<ActivityEvent, FeedWrite> operator,
          PriorityQueueStateType timers,
          OperatorSubtaskState state)
          throws Exception {
    var h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            operator, CollationKey::of, TypeInformation.of(CollationKey.class));
    var rocksDb = new EmbeddedRocksDBStateBackend();
    rocksDb.setPriorityQueueStateType(timers);
    h.setStateBackend(rocksDb);
    h.setProcessingTime(0);
    if (state != null) {
      h.initializeState(state);
    }
    h.open();
    return h;
  }
}
