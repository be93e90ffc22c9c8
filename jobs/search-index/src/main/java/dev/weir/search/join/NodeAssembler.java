package dev.weir.search.join;

import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.transform.FieldValues;
import dev.weir.documents.value.Hashes;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * The assembler of the nodes below the root: a row's value (its fields and labels as one JSON
 * object, or its one column for a scalar variant, or its child's value for a link table) goes to
 * the {@link EdgeJoin} of its edge at its join value; when the join value changes (a foreign key
 * moved it to another parent) or the row goes, its value leaves the old one.
 */
public class NodeAssembler extends Assembler<ChildValue> {

  private static final long serialVersionUID = 1L;

  /** What was last sent: where, and the hash of the value. */
  public static class Sent {
    public String joinValue;
    public long hash;

    public Sent() {}
  }

  static final ValueStateDescriptor<Sent> SENT =
      new ValueStateDescriptor<>("sent", TypeInformation.of(Sent.class));

  private transient ValueState<Sent> sent;

  public NodeAssembler(DocumentPlan plan, Duration coalesce, Duration tombstoneTtl) {
    super(plan, coalesce, tombstoneTtl);
  }

  @Override
  public void open(OpenContext context) throws Exception {
    super.open(context);
    sent = getRuntimeContext().getState(SENT);
  }

  @Override
  protected void assembled(
      DocumentPlan.Node node,
      String rowKey,
      RowValues values,
      String[] labelValues,
      long stamp,
      long time,
      Collector<ChildValue> out)
      throws Exception {
    String joinValue = values.key(node.childColumns());
    String value = value(plan, node, values, labelValues);
    Sent last = sent.value();
    if (value == null || joinValue == null) {
      // Not linked to any parent (a null foreign key, a link row whose child is missing).
      if (last != null) {
        out.collect(childValue(node, last.joinValue, rowKey, null, stamp, time));
        sent.clear();
      }
      return;
    }
    long hash = Hashes.of(value);
    if (last != null && last.joinValue.equals(joinValue) && last.hash == hash) {
      unchanged.inc();
      return;
    }
    if (last != null && !last.joinValue.equals(joinValue)) {
      out.collect(childValue(node, last.joinValue, rowKey, null, stamp, time));
    }
    out.collect(childValue(node, joinValue, rowKey, value, stamp, time));
    Sent now = new Sent();
    now.joinValue = joinValue;
    now.hash = hash;
    sent.update(now);
  }

  @Override
  protected void removed(
      DocumentPlan.Node node, String rowKey, long stamp, long time, Collector<ChildValue> out)
      throws Exception {
    Sent last = sent.value();
    if (last != null) {
      out.collect(childValue(node, last.joinValue, rowKey, null, stamp, time));
      sent.clear();
    }
  }

  /** The row's value as its parent's label holds it; null when it has none (see above). */
  static String value(
      DocumentPlan plan, DocumentPlan.Node node, RowValues values, String[] labelValues) {
    if (node.link()) {
      String child = labelValues[0];
      return "null".equals(child) ? null : child;
    }
    if (node.pathStep()) {
      // The values up the chain (root first), then this row's.
      String up = labelValues.length == 0 ? "[]" : labelValues[0];
      String own = FieldValues.of(node.fields().get(0), values::json);
      return up.startsWith("[") && up.length() > 2
          ? up.substring(0, up.length() - 1) + "," + own + "]"
          : "[" + own + "]";
    }
    if (node.scalar()) {
      return FieldValues.of(node.fields().get(0), values::json);
    }
    StringBuilder object = new StringBuilder("{");
    String[] fields = FieldValues.of(node, values::json);
    for (int i = 0; i < fields.length; i++) {
      RowValues.field(object, node.fields().get(i).name(), fields[i]);
    }
    for (int i = 0; i < labelValues.length; i++) {
      RowValues.field(object, plan.node(node.children().get(i)).label(), labelValues[i]);
    }
    return object.append('}').toString();
  }

  private ChildValue childValue(
      DocumentPlan.Node node,
      String joinValue,
      String rowKey,
      String value,
      long stamp,
      long time) {
    ChildValue c = new ChildValue();
    c.time = time;
    c.edge = node.id();
    c.joinValue = joinValue;
    c.childKey = rowKey;
    c.value = value;
    c.removed = value == null;
    c.stamp = stamp;
    return c;
  }
}
