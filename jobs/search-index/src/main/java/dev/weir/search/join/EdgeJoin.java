package dev.weir.search.join;

import dev.weir.common.types.Utf8StringTypeInfo;
import dev.weir.documents.definition.DocumentPlan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
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
 * One edge of the document tree at one join value (keyed by child node and join value): the child
 * rows there (their values, kept here) and the parent rows there (their keys only). A parent that
 * joins gets the label's value at once; a change of the children is sent to every parent there,
 * once per {@code coalesce} step of event time however many changes came in it, on an event-time
 * timer: before the watermark of the step goes on to the parents ({@link Assembler}). A brand
 * shared by 10,000 products is one key here: its rename is one state read and 10,000 records out,
 * streamed from the state (never a list in memory).
 *
 * <p>The label's value: a one_to_one edge has the child with the lowest key (or null); a
 * one_to_many edge the list of the children's values ordered by their keys ({@link #KEY_ORDER}:
 * numerically when both keys are integers, else as text), empty when none.
 */
public class EdgeJoin extends KeyedProcessFunction<String, EdgeInput, LabelValue> {

  private static final long serialVersionUID = 1L;

  /** A child row's value as the edge holds it. */
  public static class HeldChild {
    @TypeInfo(Utf8StringTypeInfo.Factory.class)
    public String value;

    public long stamp;

    public HeldChild() {}
  }

  static final MapStateDescriptor<String, HeldChild> CHILDREN =
      new MapStateDescriptor<>("children", Types.STRING, TypeInformation.of(HeldChild.class));
  static final MapStateDescriptor<String, Long> PARENTS =
      new MapStateDescriptor<>("parents", Types.STRING, Types.LONG);

  /** The highest stamp of any change that reached this join value, removals included. */
  static final ValueStateDescriptor<Long> STAMP = new ValueStateDescriptor<>("stamp", Types.LONG);

  /** The event time of the newest change that reached this join value ({@link LabelValue#time}). */
  static final ValueStateDescriptor<Long> TIME = new ValueStateDescriptor<>("time", Types.LONG);

  static final Comparator<String> KEY_ORDER = EdgeJoin::compareKeys;

  private final DocumentPlan plan;
  private final long coalesceMs;

  private transient MapState<String, HeldChild> children;
  private transient MapState<String, Long> parents;
  private transient ValueState<Long> stamp;
  private transient ValueState<Long> time;
  private transient Counter fannedOut;

  public EdgeJoin(DocumentPlan plan, Duration coalesce) {
    this.plan = plan;
    this.coalesceMs = Math.max(1, coalesce.toMillis());
  }

  @Override
  public void open(OpenContext context) {
    children = getRuntimeContext().getMapState(CHILDREN);
    parents = getRuntimeContext().getMapState(PARENTS);
    stamp = getRuntimeContext().getState(STAMP);
    time = getRuntimeContext().getState(TIME);
    fannedOut = getRuntimeContext().getMetricGroup().counter("weirLabelValuesSent");
  }

  @Override
  public void processElement(EdgeInput in, Context ctx, Collector<LabelValue> out)
      throws Exception {
    if (in.child != null) {
      ChildValue c = in.child;
      if (c.removed) {
        children.remove(c.childKey);
      } else {
        HeldChild held = new HeldChild();
        held.value = c.value;
        held.stamp = c.stamp;
        children.put(c.childKey, held);
      }
      Long known = stamp.value();
      stamp.update(known == null ? c.stamp : Math.max(known, c.stamp));
      time.update(Math.max(timeOrMin(), c.time));
      ctx.timerService().registerEventTimeTimer(Assembler.due(c.time, coalesceMs));
    } else {
      Registration r = in.registration;
      if (r.add) {
        parents.put(r.parentKey, r.stamp);
        out.collect(
            labelValue(
                r.edge,
                r.joinValue,
                r.parentKey,
                r.stamp,
                value(r.edge),
                stampOrZero(),
                Math.max(timeOrMin(), r.time)));
        fannedOut.inc();
      } else {
        parents.remove(r.parentKey);
        clearIfEmpty();
      }
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<LabelValue> out)
      throws Exception {
    String key = ctx.getCurrentKey();
    int slash = key.indexOf('/');
    int edge = Integer.parseInt(key.substring(0, slash));
    String joinValue = key.substring(slash + 1);
    String value = value(edge);
    long s = stampOrZero();
    long t = timeOrMin();
    for (Map.Entry<String, Long> parent : parents.entries()) {
      out.collect(labelValue(edge, joinValue, parent.getKey(), parent.getValue(), value, s, t));
      fannedOut.inc();
    }
    clearIfEmpty();
  }

  /** The label's value at this join value, from the children held. */
  private String value(int edge) throws Exception {
    DocumentPlan.Node child = plan.node(edge);
    List<Map.Entry<String, HeldChild>> held = new ArrayList<>();
    for (Map.Entry<String, HeldChild> e : children.entries()) {
      held.add(Map.entry(e.getKey(), e.getValue()));
    }
    held.sort(Map.Entry.comparingByKey(KEY_ORDER));
    if (!child.many()) {
      return held.isEmpty() ? "null" : held.get(0).getValue().value;
    }
    StringBuilder list = new StringBuilder("[");
    for (Map.Entry<String, HeldChild> e : held) {
      if (list.length() > 1) {
        list.append(',');
      }
      list.append(e.getValue().value);
    }
    return list.append(']').toString();
  }

  private long stampOrZero() throws Exception {
    Long s = stamp.value();
    return s == null ? 0 : s;
  }

  private long timeOrMin() throws Exception {
    Long t = time.value();
    return t == null ? Long.MIN_VALUE : t;
  }

  /** Nothing joins here any more: the key's state goes (bounded by the live rows). */
  private void clearIfEmpty() throws Exception {
    if (parents.isEmpty() && children.isEmpty()) {
      stamp.clear();
      time.clear();
    }
  }

  private LabelValue labelValue(
      int edge, String joinValue, String parentKey, long registered, String value, long s, long t) {
    LabelValue l = new LabelValue();
    l.time = t;
    l.node = plan.node(edge).parent();
    l.parentKey = parentKey;
    l.edge = edge;
    l.joinValue = joinValue;
    l.registered = registered;
    l.value = value;
    l.stamp = s;
    return l;
  }

  static int compareKeys(String a, String b) {
    Long x = integer(a);
    Long y = integer(b);
    if (x != null && y != null) {
      return Long.compare(x, y);
    }
    return a.compareTo(b);
  }

  private static Long integer(String key) {
    if (key.isEmpty() || key.length() > 19) {
      return null;
    }
    try {
      return Long.parseLong(key);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
