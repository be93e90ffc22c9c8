package dev.weir.search.join;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.job.Tombstones;
import dev.weir.common.types.Utf8StringTypeInfo;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.schema.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Puts one row of a node together with the values of its child labels (keyed by node and row key)
 * and passes the result on when it changed: to its parent's {@link EdgeJoin} ({@link
 * NodeAssembler}) or, at the root, as the document ({@link DocumentAssembler}).
 *
 * <p>It emits on event-time timers, on a grid of {@code coalesce} (a burst of changes to one row or
 * its children makes one result), so that what it emits for the changes made until a time reaches
 * the next operator before the watermark of that time does: the root waits for the watermark to
 * pass every change it holds ({@link DocumentAssembler}). It emits only once every label has the
 * value at the row's current join value: a row that moved to another parent, or a label still on
 * its way, waits rather than passing on a mix of old and new. The row's values and each label are
 * separate state entries: a label's change rewrites neither the row (its large values) nor the
 * other labels.
 */
public abstract class Assembler<OUT> extends KeyedProcessFunction<String, AssemblerInput, OUT> {

  private static final long serialVersionUID = 1L;

  /** The row's values as last changed; {@code deleted} until the removal has been passed on. */
  public static class HeldRow {
    @TypeInfo(Utf8StringTypeInfo.Factory.class)
    public String values;

    public long stamp;
    public long time;
    public boolean deleted;

    public HeldRow() {}
  }

  /** A child label's value, and the join value it is the value at. */
  public static class HeldLabel {
    public String joinValue;

    @TypeInfo(Utf8StringTypeInfo.Factory.class)
    public String value;

    public long stamp;
    public long time;
    public long registered;

    public HeldLabel() {}
  }

  static final ValueStateDescriptor<HeldRow> ROW =
      new ValueStateDescriptor<>("row", TypeInformation.of(HeldRow.class));
  static final MapStateDescriptor<Integer, HeldLabel> LABELS =
      new MapStateDescriptor<>("labels", Types.INT, TypeInformation.of(HeldLabel.class));

  protected final DocumentPlan plan;
  private final long coalesceMs;
  protected final Duration tombstoneTtl;

  protected transient ValueState<HeldRow> row;
  protected transient MapState<Integer, HeldLabel> labels;

  /**
   * The stamp of the row's deletion, for {@code tombstoneTtl}: a label sent to the row before it
   * was deleted may arrive after the deletion was handled (it comes from another operator), and
   * would otherwise stay in state for good, with no row to go with.
   */
  private transient ValueState<Long> deletedAt;

  protected transient Counter unchanged;
  private transient Counter unavailableUnknown;

  protected Assembler(DocumentPlan plan, Duration coalesce, Duration tombstoneTtl) {
    this.plan = plan;
    this.coalesceMs = Math.max(1, coalesce.toMillis());
    this.tombstoneTtl = tombstoneTtl;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    row = getRuntimeContext().getState(ROW);
    labels = getRuntimeContext().getMapState(LABELS);
    ValueStateDescriptor<Long> deletions = new ValueStateDescriptor<>("deleted-at", Types.LONG);
    deletions.enableTimeToLive(Tombstones.timeToLive(tombstoneTtl));
    deletedAt = getRuntimeContext().getState(deletions);
    unchanged = getRuntimeContext().getMetricGroup().counter("weirWritesSkippedUnchanged");
    unavailableUnknown =
        getRuntimeContext().getMetricGroup().counter("weirUnavailableValuesUnknown");
  }

  @Override
  public void processElement(AssemblerInput in, Context ctx, Collector<OUT> out) throws Exception {
    long time;
    if (in.row != null) {
      apply(in.row);
      time = in.row.time;
    } else {
      time = in.label.time;
      if (answersADeletedRow(in.label)) {
        return;
      }
      HeldLabel held = new HeldLabel();
      held.joinValue = in.label.joinValue;
      held.value = in.label.value;
      held.stamp = in.label.stamp;
      held.registered = in.label.registered;
      held.time = in.label.time;
      labels.put(in.label.edge, held);
    }
    ctx.timerService().registerEventTimeTimer(due(time, coalesceMs));
  }

  /**
   * The end of the {@code coalesceMs} step of event time {@code time}: its timer fires once the
   * watermark passes every change made in that step.
   */
  static long due(long time, long coalesceMs) {
    if (time == Long.MIN_VALUE) {
      return time; // no event time: the next watermark
    }
    return time - Math.floorMod(time, coalesceMs) + coalesceMs - 1;
  }

  /**
   * Whether to emit only once the watermark has passed everything the row and its labels reflect:
   * the root does (a document is written in a state the source held), the levels below do not
   * (their results must reach the next level before the watermark does).
   */
  protected boolean waitsForTheWatermark() {
    return false;
  }

  /** A label registered before the deletion of the row, which has been handled: nothing to do. */
  private boolean answersADeletedRow(LabelValue label) throws Exception {
    if (row.value() != null) {
      return false;
    }
    Long deletion = deletedAt.value();
    return deletion != null && label.registered < deletion;
  }

  /** Keeps the row, with the values an event marked unavailable taken from the row held. */
  private void apply(NodeRow r) throws Exception {
    HeldRow held = row.value();
    HeldRow next = new HeldRow();
    next.stamp = r.stamp;
    next.time = r.time;
    next.deleted = r.deleted;
    if (!r.deleted) {
      next.values = r.values;
      if (r.unavailable != null && r.unavailable.length > 0) {
        ObjectNode values = (ObjectNode) Json.mapper().readTree(r.values);
        JsonNode before =
            held == null || held.values == null ? null : Json.mapper().readTree(held.values);
        for (String column : r.unavailable) {
          if (before != null && before.has(column)) {
            values.set(column, before.get(column));
          } else {
            // Unchanged in the source, but this job never saw it (started after its last write).
            unavailableUnknown.inc();
            values.putNull(column);
          }
        }
        next.values = Json.mapper().writeValueAsString(values);
      }
    }
    row.update(next);
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<OUT> out) throws Exception {
    HeldRow held = row.value();
    if (held == null) {
      return;
    }
    String key = ctx.getCurrentKey();
    int slash = key.indexOf('/');
    DocumentPlan.Node node = plan.node(Integer.parseInt(key.substring(0, slash)));
    String rowKey = key.substring(slash + 1);
    // The watermark, not the timer's time: a change without an event time of its own sets a
    // timer for the next watermark (Long.MIN_VALUE), while its document's other parts have one.
    long watermark = ctx.timerService().currentWatermark();
    if (held.deleted) {
      if (waitsForTheWatermark() && due(held.time, coalesceMs) > watermark) {
        return; // a later timer comes
      }
      removed(node, rowKey, held.stamp, held.time, out);
      row.clear();
      deletedAt.update(held.stamp);
      dropLabelsJoinedBefore(held.stamp);
      return;
    }
    RowValues values = RowValues.of(held.values);
    if (node.filter() != null && !node.filter().matches(values::value)) {
      // Out of the node's rows: gone for its parent (or, at the root, its document), but kept
      // here with its labels, as it holds values a later change may leave unavailable.
      if (waitsForTheWatermark() && due(held.time, coalesceMs) > watermark) {
        return; // a later timer comes
      }
      removed(node, rowKey, held.stamp, held.time, out);
      return;
    }
    String[] labelValues = new String[node.children().size()];
    long stamp = held.stamp;
    long time = held.time;
    for (int i = 0; i < labelValues.length; i++) {
      DocumentPlan.Node child = plan.node(node.children().get(i));
      String expected = values.key(child.parentColumns());
      if (expected == null) {
        labelValues[i] = child.many() ? "[]" : "null";
        continue;
      }
      HeldLabel label = labels.get(child.id());
      if (label == null || !expected.equals(label.joinValue)) {
        return; // its value at the row's join value is on its way: a timer runs when it comes
      }
      labelValues[i] = label.value;
      stamp = Math.max(stamp, label.stamp);
      time = Math.max(time, label.time);
    }
    if (waitsForTheWatermark() && due(time, coalesceMs) > watermark) {
      return; // part of it is newer than the watermark: a later timer comes
    }
    assembled(node, rowKey, values, labelValues, stamp, time, out);
  }

  /**
   * A deleted row's labels go with it, but not those answering its coming back (they may arrive
   * before its deletion does: they come from another operator).
   */
  private void dropLabelsJoinedBefore(long deletion) throws Exception {
    List<Integer> dropped = new ArrayList<>();
    for (Map.Entry<Integer, HeldLabel> label : labels.entries()) {
      if (label.getValue().registered < deletion) {
        dropped.add(label.getKey());
      }
    }
    for (int edge : dropped) {
      labels.remove(edge);
    }
  }

  /** The row and its labels' values are all known: emit what changed. */
  protected abstract void assembled(
      DocumentPlan.Node node,
      String rowKey,
      RowValues values,
      String[] labelValues,
      long stamp,
      long time,
      Collector<OUT> out)
      throws Exception;

  /** The row was deleted: take back what was emitted for it. */
  protected abstract void removed(
      DocumentPlan.Node node, String rowKey, long stamp, long time, Collector<OUT> out)
      throws Exception;
}
