package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.search.definition.DocumentPlan;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;

/**
 * The declared join's operators, each in a test harness, wired as {@link DocumentJoin} wires them,
 * with every channel between two operators a queue of its own: records are delivered in the order
 * of each channel (as Flink keeps it) but the channels in a random, seeded order (as Flink may
 * interleave them), and processing time moves on at random moments. What comes out is checked to
 * only raise each document's version.
 */
final class JoinSimulator implements AutoCloseable {

  static final Duration COALESCE = Duration.ofMillis(100);

  private final DocumentPlan plan;
  private final Random random;
  private final NodeRows nodeRows;
  private KeyedOneInputStreamOperatorTestHarness<String, RowChange, NodeRow> tracker;
  private final List<KeyedOneInputStreamOperatorTestHarness<String, AssemblerInput, ChildValue>>
      assemblers = new ArrayList<>();
  private final List<KeyedOneInputStreamOperatorTestHarness<String, EdgeInput, LabelValue>> edges =
      new ArrayList<>();
  private KeyedOneInputStreamOperatorTestHarness<String, AssemblerInput, DocumentChange> root;
  private final List<Channel<?>> channels = new ArrayList<>();
  private final Map<String, Channel<RowChange>> sources = new LinkedHashMap<>();
  private final Map<String, DocumentChange> documents = new LinkedHashMap<>();
  private final List<DocumentChange> emitted = new ArrayList<>();
  private long time;

  /** One channel between two operators: a queue, delivered in order. */
  private static final class Channel<T> {
    final Deque<T> queue = new ArrayDeque<>();
    final Consumer<T> deliver;

    Channel(Consumer<T> deliver) {
      this.deliver = deliver;
    }

    void deliverOne() {
      deliver.accept(queue.poll());
    }
  }

  JoinSimulator(DocumentPlan plan, long seed) throws Exception {
    this.plan = plan;
    this.random = new Random(seed);
    this.nodeRows = new NodeRows(plan);
    tracker = harness(new RowTracker(plan, 0, TOMBSTONE_TTL), RowChange::stateKey, null);
    root =
        harness(
            new DocumentAssembler(plan, COALESCE, TOMBSTONE_TTL), AssemblerInput::stateKey, null);
    for (int depth = 0; depth <= plan.depth(); depth++) {
      assemblers.add(
          depth == 0
              ? null
              : harness(
                  new NodeAssembler(plan, COALESCE, TOMBSTONE_TTL),
                  AssemblerInput::stateKey,
                  null));
      edges.add(
          depth == 0 ? null : harness(new EdgeJoin(plan, COALESCE), EdgeInput::stateKey, null));
    }
    for (DocumentPlan.Source source : plan.sources().values()) {
      sources.put(source.name(), channel(c -> process(tracker, c)));
    }
  }

  static final Duration TOMBSTONE_TTL = Duration.ofDays(7);

  /**
   * Takes a full snapshot of every operator, {@code passed} after the last change in the state's
   * time to live (which a full snapshot applies), and starts each operator again from it, as a
   * restore does. Everything must have been delivered.
   */
  void restoreFromSnapshot(Duration passed) throws Exception {
    assertThat(channels).allMatch(c -> c.queue.isEmpty());
    long ttlNow = time + passed.toMillis();
    tracker = reopen(tracker, new RowTracker(plan, 0, TOMBSTONE_TTL), RowChange::stateKey, ttlNow);
    root =
        reopen(
            root,
            new DocumentAssembler(plan, COALESCE, TOMBSTONE_TTL),
            AssemblerInput::stateKey,
            ttlNow);
    for (int depth = 1; depth <= plan.depth(); depth++) {
      assemblers.set(
          depth,
          reopen(
              assemblers.get(depth),
              new NodeAssembler(plan, COALESCE, TOMBSTONE_TTL),
              AssemblerInput::stateKey,
              ttlNow));
      edges.set(
          depth,
          reopen(edges.get(depth), new EdgeJoin(plan, COALESCE), EdgeInput::stateKey, ttlNow));
    }
    // The wires name the operators they deliver to: made again, to the new ones, on first use.
    channels.removeAll(wires.values());
    wires.clear();
  }

  private <I, O> KeyedOneInputStreamOperatorTestHarness<String, I, O> reopen(
      KeyedOneInputStreamOperatorTestHarness<String, I, O> old,
      KeyedProcessFunction<String, I, O> fresh,
      KeySelector<I, String> key,
      long ttlNow)
      throws Exception {
    old.setStateTtlProcessingTime(ttlNow);
    OperatorSubtaskState snapshot = old.snapshot(1, time);
    old.close();
    var h = harness(fresh, key, snapshot);
    h.setStateTtlProcessingTime(ttlNow);
    h.setProcessingTime(time);
    return h;
  }

  /** Keyed state per state name, summed over the operators: how many keys hold each. */
  Map<String, Long> stateKeys() throws Exception {
    Map<String, Long> keys = new TreeMap<>();
    for (var h : allHarnesses()) {
      KeyedStateBackend<String> backend =
          ((AbstractStreamOperator<?>) h.getOperator()).getKeyedStateBackend();
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
          NodeAssembler.SENT.getName(),
          Assembler.ROW.getName(),
          Assembler.LABELS.getName(),
          DocumentAssembler.WRITTEN.getName(),
          "deleted-version",
          "deleted-at");

  private <T> Channel<T> channel(Consumer<T> deliver) {
    Channel<T> c = new Channel<>(deliver);
    channels.add(c);
    return c;
  }

  // Channels out of each operator, made on first use, one per (sender, receiver) pair.
  private final Map<String, Channel<?>> wires = new LinkedHashMap<>();

  @SuppressWarnings("unchecked")
  private <T> Channel<T> wire(String name, Consumer<T> deliver) {
    return (Channel<T>) wires.computeIfAbsent(name, n -> channel(deliver));
  }

  /** A change of a source row, on its table's channel. */
  void send(SourceRow row) throws Exception {
    List<RowChange> changes = new ArrayList<>();
    nodeRows.flatMap(row, collector(changes));
    sources.get(row.source).queue.addAll(changes);
  }

  /** Delivers everything, in a random order of channels, until nothing moves any more. */
  void runUntilQuiet() throws Exception {
    int quietTicks = 0;
    while (quietTicks < 3) {
      List<Channel<?>> busy = channels.stream().filter(c -> !c.queue.isEmpty()).toList();
      if (busy.isEmpty() || random.nextInt(20) == 0) {
        time += COALESCE.toMillis();
        for (var h : allHarnesses()) {
          h.setProcessingTime(time);
        }
        drainAll();
        quietTicks =
            busy.isEmpty() && channels.stream().allMatch(c -> c.queue.isEmpty())
                ? quietTicks + 1
                : 0;
        continue;
      }
      busy.get(random.nextInt(busy.size())).deliverOne();
      drainAll();
    }
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

  /** Moves what each operator emitted onto the channels to its receivers. */
  private void drainAll() {
    for (StreamRecord<NodeRow> r : drain(tracker)) {
      NodeRow row = r.getValue();
      int depth = plan.node(row.node).depth();
      var target = depth == 0 ? root : assemblers.get(depth);
      this.<AssemblerInput>wire("rows-" + depth, in -> process(target, in))
          .queue
          .add(AssemblerInput.of(row));
    }
    var registrations = tracker.getSideOutput(RowTracker.REGISTRATIONS);
    if (registrations != null) {
      for (StreamRecord<Registration> r; (r = registrations.poll()) != null; ) {
        int depth = plan.node(r.getValue().edge).depth();
        var target = edges.get(depth);
        this.<EdgeInput>wire("registrations-" + depth, in -> process(target, in))
            .queue
            .add(EdgeInput.of(r.getValue()));
      }
    }
    for (int depth = 1; depth < assemblers.size(); depth++) {
      var edge = edges.get(depth);
      for (StreamRecord<ChildValue> r : drain(assemblers.get(depth))) {
        this.<EdgeInput>wire("children-" + depth, in -> process(edge, in))
            .queue
            .add(EdgeInput.of(r.getValue()));
      }
      var parentDepth = depth - 1;
      var target = parentDepth == 0 ? root : assemblers.get(parentDepth);
      for (StreamRecord<LabelValue> r : drain(edge)) {
        this.<AssemblerInput>wire("labels-" + depth, in -> process(target, in))
            .queue
            .add(AssemblerInput.of(r.getValue()));
      }
    }
    for (StreamRecord<DocumentChange> r : drain(root)) {
      DocumentChange d = r.getValue();
      DocumentChange before = documents.get(d.id);
      if (before != null) {
        assertThat(d.version).as("version of %s after %s", d, before).isGreaterThan(before.version);
      }
      documents.put(d.id, d);
      emitted.add(d);
    }
  }

  @SuppressWarnings("unchecked")
  private static <O> List<StreamRecord<O>> drain(
      KeyedOneInputStreamOperatorTestHarness<String, ?, O> h) {
    List<StreamRecord<O>> records = new ArrayList<>();
    for (Object o; (o = h.getOutput().poll()) != null; ) {
      if (o instanceof StreamRecord<?> r) {
        records.add((StreamRecord<O>) r);
      }
    }
    return records;
  }

  private static <I> void process(KeyedOneInputStreamOperatorTestHarness<String, I, ?> h, I in) {
    try {
      h.processElement(in, 0);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private List<KeyedOneInputStreamOperatorTestHarness<String, ?, ?>> allHarnesses() {
    List<KeyedOneInputStreamOperatorTestHarness<String, ?, ?>> all = new ArrayList<>();
    all.add(tracker);
    all.add(root);
    assemblers.stream().filter(h -> h != null).forEach(all::add);
    edges.stream().filter(h -> h != null).forEach(all::add);
    return all;
  }

  private static <I, O> KeyedOneInputStreamOperatorTestHarness<String, I, O> harness(
      KeyedProcessFunction<String, I, O> function,
      KeySelector<I, String> key,
      OperatorSubtaskState restoreFrom)
      throws Exception {
    var h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(function), key, Types.STRING);
    if (restoreFrom != null) {
      h.initializeState(restoreFrom);
    }
    h.open();
    return h;
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
    for (var h : allHarnesses()) {
      h.close();
    }
  }
}
