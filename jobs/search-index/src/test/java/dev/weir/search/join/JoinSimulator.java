package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;

/**
 * The declared join's operators, each in a test harness, wired as {@link DocumentJoin} wires them,
 * with every channel between two operators a queue of its own: records and watermarks are delivered
 * in the order of each channel (as Flink keeps it) but the channels in a random, seeded order (as
 * Flink may interleave them); an operator's watermark is the lowest of its inputs'. Each source
 * channel carries a watermark after each change (its time less one, as {@code CaughtUpWatermarks}
 * emits), and at random moments the time moves on as when every source has caught up. What comes
 * out is checked to only raise each document's version.
 */
final class JoinSimulator implements AutoCloseable {

  static final Duration COALESCE = Duration.ofMillis(100);

  /** Event time between two changes the simulator times itself. */
  static final long STEP_MS = 10;

  private final DocumentPlan plan;
  private final Random random;
  private final NodeRows nodeRows;
  private final Map<String, Operator> operators = new LinkedHashMap<>();
  private final Map<String, Channel> channels = new LinkedHashMap<>();
  private final Map<String, DocumentChange> documents = new LinkedHashMap<>();
  private final List<DocumentChange> emitted = new ArrayList<>();
  private long clock;
  private final Map<Channel, Integer> preference = new HashMap<>();

  /** Where the operators keep their state; null: the harness's own (on the heap). */
  private final StateBackend backend;

  /** One channel between two operators: a queue of records and watermarks, delivered in order. */
  private static final class Channel {
    final String name;
    final Deque<Object> queue = new ArrayDeque<>();
    Operator to;

    Channel(String name) {
      this.name = name;
    }
  }

  /** Makes an operator's harness, not yet opened. */
  private interface HarnessFactory {
    AbstractStreamOperatorTestHarness<?> create() throws Exception;
  }

  /** One operator: its harness, its input channels' watermarks, its output channels. */
  private static final class Operator {
    final String name;
    final HarnessFactory factory;
    final StateBackend backend;
    AbstractStreamOperatorTestHarness<?> harness;
    final Map<String, Long> inputWatermarks = new LinkedHashMap<>();
    final List<Channel> outputs = new ArrayList<>();
    long watermark = Long.MIN_VALUE;

    Operator(String name, HarnessFactory factory, StateBackend backend) throws Exception {
      this.name = name;
      this.factory = factory;
      this.backend = backend;
      this.harness = open(null);
    }

    /** A new harness of the operator, started from {@code restoreFrom} (null: empty). */
    AbstractStreamOperatorTestHarness<?> open(OperatorSubtaskState restoreFrom) throws Exception {
      AbstractStreamOperatorTestHarness<?> h = factory.create();
      if (backend != null) {
        h.setStateBackend(backend);
      }
      if (restoreFrom != null) {
        h.initializeState(restoreFrom);
      }
      h.open();
      return h;
    }

    /** A record; the tracker takes a truncate on its broadcast input. */
    @SuppressWarnings("unchecked")
    void process(Object in) {
      try {
        if (harness instanceof KeyedBroadcastOperatorTestHarness<?, ?, ?, ?> broadcast) {
          var tracker =
              (KeyedBroadcastOperatorTestHarness<String, RowChange, RowChange, ?>) broadcast;
          RowChange change = (RowChange) in;
          if (change.truncated) {
            tracker.processBroadcastElement(change, 0);
          } else {
            tracker.processElement(change, 0);
          }
        } else {
          ((KeyedOneInputStreamOperatorTestHarness<String, Object, ?>) harness)
              .processElement(in, 0);
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    /** Whether the operator's own watermark moved on. */
    boolean watermark(String channel, long w) throws Exception {
      inputWatermarks.put(channel, w);
      long lowest =
          inputWatermarks.values().stream().mapToLong(Long::longValue).min().orElseThrow();
      if (lowest <= watermark) {
        return false;
      }
      watermark = lowest;
      if (harness instanceof KeyedBroadcastOperatorTestHarness<?, ?, ?, ?> broadcast) {
        // Truncates come on the source channels too: both inputs are at the channels' lowest.
        broadcast.processWatermark(lowest);
        broadcast.processBroadcastWatermark(lowest);
      } else {
        ((KeyedOneInputStreamOperatorTestHarness<?, ?, ?>) harness)
            .processWatermark(new Watermark(lowest));
      }
      return true;
    }
  }

  JoinSimulator(DocumentPlan plan, long seed) throws Exception {
    this(plan, seed, null);
  }

  /** The operators keeping their state in {@code backend} (null: on the heap). */
  JoinSimulator(DocumentPlan plan, long seed, StateBackend backend) throws Exception {
    this.plan = plan;
    this.random = new Random(seed);
    this.backend = backend;
    this.nodeRows = new NodeRows(plan);
    Operator tracker =
        add(
            "track",
            () ->
                new KeyedBroadcastOperatorTestHarness<>(
                    new CoBroadcastWithKeyedOperator<>(
                        new RowTracker(plan, 0, TOMBSTONE_TTL), List.of(RowTracker.TRUNCATED)),
                    RowChange::stateKey,
                    Types.STRING,
                    128,
                    1,
                    0));
    for (DocumentPlan.Source source : plan.sources().values()) {
      connect(null, "source-" + source.name(), tracker);
    }
    add(
        "assemble-0",
        keyed(
            () -> new DocumentAssembler(plan, COALESCE, TOMBSTONE_TTL), AssemblerInput::stateKey));
    for (int depth = 1; depth <= plan.depth(); depth++) {
      add(
          "assemble-" + depth,
          keyed(() -> new NodeAssembler(plan, COALESCE, TOMBSTONE_TTL), AssemblerInput::stateKey));
      add("edge-" + depth, keyed(() -> new EdgeJoin(plan, COALESCE), EdgeInput::stateKey));
    }
    for (int depth = 0; depth <= plan.depth(); depth++) {
      connect(tracker, "rows-" + depth, operators.get("assemble-" + depth));
      if (depth > 0) {
        connect(tracker, "registrations-" + depth, operators.get("edge-" + depth));
        connect(
            operators.get("assemble-" + depth),
            "children-" + depth,
            operators.get("edge-" + depth));
        connect(
            operators.get("edge-" + depth),
            "labels-" + depth,
            operators.get("assemble-" + (depth - 1)));
      }
    }
    List<Channel> order = new ArrayList<>(channels.values());
    Collections.shuffle(order, random);
    for (int i = 0; i < order.size(); i++) {
      preference.put(order.get(i), i);
    }
  }

  private Operator add(String name, HarnessFactory factory) throws Exception {
    Operator op = new Operator(name, factory, backend);
    operators.put(name, op);
    return op;
  }

  private static <I, O> HarnessFactory keyed(
      Supplier<KeyedProcessFunction<String, I, O>> function, KeySelector<I, String> key) {
    return () ->
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(function.get()), key, Types.STRING);
  }

  private void connect(Operator from, String name, Operator to) {
    Channel c = new Channel(name);
    c.to = to;
    to.inputWatermarks.put(name, Long.MIN_VALUE);
    if (from != null) {
      from.outputs.add(c);
    }
    channels.put(name, c);
  }

  static final Duration TOMBSTONE_TTL = Duration.ofDays(7);

  /**
   * Takes a full snapshot of every operator, {@code passed} after the last change in the state's
   * time to live (which a full snapshot applies), and starts each operator again from it, as a
   * restore does. Everything must have been delivered.
   */
  void restoreFromSnapshot(Duration passed) throws Exception {
    assertThat(channels.values()).allMatch(c -> c.queue.isEmpty());
    long ttlNow = clock + passed.toMillis();
    for (Operator op : operators.values()) {
      reopen(op, ttlNow);
    }
  }

  private void reopen(Operator op, long ttlNow) throws Exception {
    op.harness.setStateTtlProcessingTime(ttlNow);
    OperatorSubtaskState snapshot = op.harness.snapshot(1, clock);
    op.harness.close();
    op.harness = op.open(snapshot);
    op.harness.setStateTtlProcessingTime(ttlNow);
    // A restored operator starts without a watermark, and its inputs' come again.
    op.watermark = Long.MIN_VALUE;
    op.inputWatermarks.replaceAll((c, w) -> Long.MIN_VALUE);
  }

  /** Every operator's state now, to restart from ({@link #restartFrom}). All delivered. */
  Map<String, OperatorSubtaskState> states() throws Exception {
    assertThat(channels.values()).allMatch(c -> c.queue.isEmpty());
    Map<String, OperatorSubtaskState> states = new LinkedHashMap<>();
    for (Operator op : operators.values()) {
      states.put(op.name, op.harness.snapshot(1, clock));
    }
    return states;
  }

  /**
   * As a job restarted from a checkpoint after it went on: every operator started again from its
   * state in {@code states}, what was in flight lost. What it emits next may be older than what it
   * emitted since those states (a replay); versions are checked to rise from here on.
   */
  void restartFrom(Map<String, OperatorSubtaskState> states) throws Exception {
    channels.values().forEach(c -> c.queue.clear());
    for (Operator op : operators.values()) {
      restart(op, states.get(op.name));
    }
    documents.clear();
  }

  private void restart(Operator op, OperatorSubtaskState state) throws Exception {
    op.harness.close();
    op.harness = op.open(state);
    op.watermark = Long.MIN_VALUE;
    op.inputWatermarks.replaceAll((c, w) -> Long.MIN_VALUE);
  }

  /**
   * Takes checkpoint {@code checkpointId} of every operator and confirms it; returns, per operator,
   * the size of what its keyed state's snapshot adds (with RocksDB's incremental checkpoints: the
   * files new since the last confirmed checkpoint, and the few every checkpoint uploads).
   * Everything must have been delivered.
   */
  Map<String, Long> checkpoint(long checkpointId) throws Exception {
    assertThat(channels.values()).allMatch(c -> c.queue.isEmpty());
    Map<String, Long> added = new LinkedHashMap<>();
    for (Operator op : operators.values()) {
      OperatorSubtaskState state = op.harness.snapshot(checkpointId, clock);
      op.harness.notifyOfCompletedCheckpoint(checkpointId);
      added.put(
          op.name,
          state.getManagedKeyedState().stream()
              .mapToLong(KeyedStateHandle::getCheckpointedSize)
              .sum());
    }
    return added;
  }

  /** Keyed state per state name, summed over the operators: how many keys hold each. */
  Map<String, Long> stateKeys() throws Exception {
    Map<String, Long> keys = new TreeMap<>();
    for (Operator op : operators.values()) {
      KeyedStateBackend<String> backend =
          ((AbstractStreamOperator<?>) op.harness.getOperator()).getKeyedStateBackend();
      for (String name : STATE_NAMES) {
        long n = backend.getKeys(name, VoidNamespace.INSTANCE).count();
        if (n > 0) {
          keys.merge(name, n, Long::sum);
        }
      }
    }
    return keys;
  }

  /** Every keyed state the join's operators register. */
  static final List<String> STATE_NAMES =
      List.of(
          RowTracker.TRACKED.getName(),
          "tombstone",
          EdgeJoin.CHILDREN.getName(),
          EdgeJoin.PARENTS.getName(),
          EdgeJoin.STAMP.getName(),
          EdgeJoin.TIME.getName(),
          NodeAssembler.SENT.getName(),
          Assembler.ROW.getName(),
          Assembler.LABELS.getName(),
          DocumentAssembler.WRITTEN.getName(),
          "deleted-version",
          "deleted-at");

  /**
   * A change of a source row, on its table's channel, followed by its watermark. A row without an
   * event time is made {@link #STEP_MS} after the last one.
   */
  void send(SourceRow row) throws Exception {
    if (row.time == Long.MIN_VALUE) {
      row.time = clock + STEP_MS;
    }
    clock = Math.max(clock, row.time);
    enqueue(row, row.time);
  }

  /**
   * A change without an event time of its own (a topic's event, a change event without a commit
   * time): the source times it by its Kafka timestamp, the next step of the clock.
   */
  void sendWithoutTime(SourceRow row) throws Exception {
    row.time = Long.MIN_VALUE;
    clock += STEP_MS;
    enqueue(row, clock);
  }

  private void enqueue(SourceRow row, long sourceTime) throws Exception {
    List<RowChange> changes = new ArrayList<>();
    nodeRows.flatMap(row, collector(changes));
    Channel source = channels.get("source-" + row.source);
    source.queue.addAll(changes);
    source.queue.add(new Watermark(sourceTime - 1));
  }

  /**
   * Delivers everything, in a random order of channels, until nothing moves any more; the time
   * moves on at random moments (every source caught up: the wall clock less the lag passes every
   * change sent).
   */
  void runUntilQuiet() throws Exception {
    int quietTicks = 0;
    while (quietTicks < 3) {
      List<Channel> busy = busyChannels();
      if (busy.isEmpty() || random.nextInt(20) == 0) {
        clock += COALESCE.toMillis();
        for (Channel c : channels.values()) {
          // A source with changes still to deliver has not caught up: its watermark comes after.
          if (c.name.startsWith("source-") && c.queue.isEmpty()) {
            c.queue.add(new Watermark(clock));
          }
        }
        if (busy.isEmpty()) {
          quietTicks++;
        }
        continue;
      }
      if (deliverOne(pick(busy))) {
        quietTicks = 0;
      }
    }
    // The last ticks' watermarks, and whatever their timers emit.
    for (List<Channel> busy; !(busy = busyChannels()).isEmpty(); ) {
      deliverOne(busy.get(random.nextInt(busy.size())));
    }
  }

  /**
   * Makes the source's channel the first in this simulator's order: it is read far ahead of the
   * others, as a topic may be when a job starts on a backlog.
   */
  void readFirst(String source) {
    preference.put(channels.get("source-" + source), -1);
  }

  /**
   * A busy channel: half the time the first in this simulator's own order of channels (so some run
   * far ahead of others, as one topic may be read long before another), else any.
   */
  private Channel pick(List<Channel> busy) {
    if (random.nextBoolean()) {
      return busy.stream().min(Comparator.comparingInt(preference::get)).orElseThrow();
    }
    return busy.get(random.nextInt(busy.size()));
  }

  private List<Channel> busyChannels() {
    return channels.values().stream().filter(c -> !c.queue.isEmpty()).toList();
  }

  /** Delivers the next element of a channel; whether it was a record. */
  private boolean deliverOne(Channel c) throws Exception {
    Object next = c.queue.poll();
    boolean record = !(next instanceof Watermark);
    if (next instanceof Watermark w) {
      c.to.watermark(c.name, w.getTimestamp());
    } else {
      c.to.process(next);
    }
    drain(c.to);
    return record;
  }

  /** The last document emitted per id (deleted ones removed). */
  Map<String, DocumentChange> documents() {
    Map<String, DocumentChange> live = new LinkedHashMap<>();
    documents.forEach(
        (id, d) -> {
          if (!d.deleted) {
            live.put(id, d);
          }
        });
    return live;
  }

  List<DocumentChange> emitted() {
    return emitted;
  }

  /** Moves what an operator emitted, records and watermarks in their order, onto its channels. */
  private void drain(Operator op) {
    if (op.name.equals("track")) {
      var registrations = op.harness.getSideOutput(RowTracker.REGISTRATIONS);
      if (registrations != null) {
        for (StreamRecord<Registration> r; (r = registrations.poll()) != null; ) {
          channels
              .get("registrations-" + plan.node(r.getValue().edge).depth())
              .queue
              .add(EdgeInput.of(r.getValue()));
        }
      }
    }
    for (Object o; (o = op.harness.getOutput().poll()) != null; ) {
      if (o instanceof Watermark w) {
        op.outputs.forEach(c -> c.queue.add(w));
      } else if (o instanceof StreamRecord<?> r) {
        route(op, r.getValue());
      }
    }
  }

  private void route(Operator op, Object value) {
    if (value instanceof NodeRow row) {
      channels.get("rows-" + plan.node(row.node).depth()).queue.add(AssemblerInput.of(row));
    } else if (value instanceof ChildValue child) {
      channels.get("children-" + plan.node(child.edge).depth()).queue.add(EdgeInput.of(child));
    } else if (value instanceof LabelValue label) {
      channels.get("labels-" + plan.node(label.edge).depth()).queue.add(AssemblerInput.of(label));
    } else {
      DocumentChange d = (DocumentChange) value;
      DocumentChange before = documents.get(d.id);
      if (before != null) {
        assertThat(d.version).as("version of %s after %s", d, before).isGreaterThan(before.version);
      }
      documents.put(d.id, d);
      emitted.add(d);
    }
  }

  private static <T> Collector<T> collector(List<T> into) {
    return new Collector<>() {
      @Override
      public void collect(T record) {
        into.add(record);
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() throws Exception {
    for (Operator op : operators.values()) {
      op.harness.close();
    }
  }
}
