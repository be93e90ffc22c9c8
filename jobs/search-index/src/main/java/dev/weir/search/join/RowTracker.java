package dev.weir.search.join;

import dev.weir.common.job.Tombstones;
import dev.weir.documents.definition.DocumentPlan;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The first step for every row of every node (keyed by node and row key): stamps the change ({@link
 * Stamps}: a change older than the one held is a re-delivery, and is dropped), passes the row to
 * its node's assembler, and tells the {@link EdgeJoin} of each child edge when the row's join value
 * for that edge changes (it joins the children at the new value, leaves the old). It holds only
 * each row's stamp and join values, a few bytes; a deleted row's stamp is kept as a tombstone for
 * {@code tombstoneTtl}, to recognize a re-delivery of its older changes.
 *
 * <p>A TRUNCATE of a node's table comes on the broadcast input, to every parallel tracker: each
 * deletes the node's rows it holds that were written before the truncate's LSN (their documents
 * lose them as with any delete), and remembers that LSN, so that a change from before the truncate
 * that arrives after it (from another partition of the topic, or a replay) is dropped as stale.
 * LSNs order changes within one PostgreSQL cluster: a row from before a raised {@code
 * search.source-epoch} is older than any truncate after it.
 */
public class RowTracker
    extends KeyedBroadcastProcessFunction<String, RowChange, RowChange, NodeRow> {

  private static final long serialVersionUID = 1L;

  public static final OutputTag<Registration> REGISTRATIONS =
      new OutputTag<>("registrations", TypeInformation.of(Registration.class));

  /** A live row: its stamp and, per child edge (in the node's order), its join value. */
  public static class Tracked {
    public long stamp;
    public String[] joinValues;

    public Tracked() {}
  }

  static final ValueStateDescriptor<Tracked> TRACKED =
      new ValueStateDescriptor<>("tracked", TypeInformation.of(Tracked.class));

  /** Per node, the stamp ({@link Stamps#of}: source epoch, LSN) of its table's last truncate. */
  public static final MapStateDescriptor<Integer, Long> TRUNCATED =
      new MapStateDescriptor<>("truncated", Types.INT, Types.LONG);

  private final DocumentPlan plan;
  private final long sourceEpoch;
  private final Duration tombstoneTtl;

  private transient ValueState<Tracked> tracked;
  private transient ValueState<Long> tombstone;
  private transient Counter stale;
  private transient Counter truncatedRows;

  public RowTracker(DocumentPlan plan, long sourceEpoch, Duration tombstoneTtl) {
    this.plan = plan;
    this.sourceEpoch = sourceEpoch;
    this.tombstoneTtl = tombstoneTtl;
  }

  @Override
  public void open(OpenContext context) {
    tracked = getRuntimeContext().getState(TRACKED);
    ValueStateDescriptor<Long> tombstones = new ValueStateDescriptor<>("tombstone", Types.LONG);
    tombstones.enableTimeToLive(Tombstones.timeToLive(tombstoneTtl));
    tombstone = getRuntimeContext().getState(tombstones);
    stale = getRuntimeContext().getMetricGroup().counter("weirStaleChanges");
    truncatedRows = getRuntimeContext().getMetricGroup().counter("weirTruncatedRows");
  }

  @Override
  public void processElement(RowChange change, ReadOnlyContext ctx, Collector<NodeRow> out)
      throws Exception {
    Long truncatedAt = ctx.getBroadcastState(TRUNCATED).get(change.node);
    if (truncatedAt != null
        && change.lsn >= 0
        && Stamps.of(sourceEpoch, change.lsn) < truncatedAt) {
      stale.inc(); // written before its table was truncated
      return;
    }
    Tracked held = tracked.value();
    Long deletedAt = held == null ? tombstone.value() : null;
    long last = held != null ? held.stamp : deletedAt != null ? deletedAt : -1;
    long stamp = stamp(change, last, sourceEpoch);
    // A topic node's version is the row's own: an equal one is a replay, or not newer.
    boolean versioned = plan.source(plan.node(change.node)).isTopic();
    if (stamp < last || (versioned && stamp == last)) {
      stale.inc();
      return;
    }
    apply(change, held, deletedAt, stamp, r -> ctx.output(REGISTRATIONS, r), out);
  }

  /**
   * A truncate of the node's table: deletes every row of the node this tracker holds that was
   * written before it, as a delete of each would.
   */
  @Override
  public void processBroadcastElement(RowChange truncate, Context ctx, Collector<NodeRow> out)
      throws Exception {
    long at = Stamps.of(sourceEpoch, truncate.lsn);
    BroadcastState<Integer, Long> truncated = ctx.getBroadcastState(TRUNCATED);
    Long before = truncated.get(truncate.node);
    if (before != null && before >= at) {
      return; // a re-delivery
    }
    truncated.put(truncate.node, at);
    String prefix = truncate.node + "/";
    ctx.applyToKeyedState(
        TRACKED,
        (key, state) -> {
          Tracked held = state.value();
          if (held == null || !key.startsWith(prefix) || !writtenBefore(held.stamp, truncate.lsn)) {
            return;
          }
          RowChange delete = new RowChange();
          delete.node = truncate.node;
          delete.key = key.substring(prefix.length());
          delete.deleted = true;
          delete.lsn = truncate.lsn;
          delete.time = truncate.time;
          apply(
              delete,
              held,
              null,
              stamp(delete, held.stamp, sourceEpoch),
              r -> ctx.output(REGISTRATIONS, r),
              out);
          truncatedRows.inc();
        });
  }

  /** Whether a row last stamped {@code stamp} was written before a truncate at {@code lsn}. */
  private boolean writtenBefore(long stamp, long lsn) {
    return Stamps.epoch(stamp) < sourceEpoch || Stamps.lsn(stamp) < lsn;
  }

  /** Applies a change newer than what the row had: tells the edges, emits it, keeps its stamp. */
  private void apply(
      RowChange change,
      Tracked held,
      Long deletedAt,
      long stamp,
      Consumer<Registration> registrations,
      Collector<NodeRow> out)
      throws Exception {
    DocumentPlan.Node node = plan.node(change.node);
    String[] joins =
        change.deleted ? new String[node.children().size()] : joinValues(plan, node, change.values);
    String[] before = held == null ? new String[joins.length] : held.joinValues;
    for (int i = 0; i < joins.length; i++) {
      if (!Objects.equals(before[i], joins[i])) {
        int edge = node.children().get(i);
        if (before[i] != null) {
          registrations.accept(
              Registration.of(edge, before[i], change.key, false, stamp, change.time));
        }
        if (joins[i] != null) {
          registrations.accept(
              Registration.of(edge, joins[i], change.key, true, stamp, change.time));
        }
      }
    }
    NodeRow row = new NodeRow();
    row.node = change.node;
    row.key = change.key;
    row.values = change.values;
    row.unavailable = change.unavailable;
    row.deleted = change.deleted;
    row.stamp = stamp;
    row.time = change.time;
    out.collect(row);
    if (change.deleted) {
      tracked.clear();
      tombstone.update(stamp);
    } else {
      Tracked t = new Tracked();
      t.stamp = stamp;
      t.joinValues = joins;
      tracked.update(t);
      if (deletedAt != null) {
        tombstone.clear(); // (a row that is held has none: it was cleared when the row came back)
      }
    }
  }

  /**
   * The stamp of a change after the row's last one ({@code last}, -1 if none): a snapshot read of a
   * known row starts a new epoch, a change without an LSN keeps the last one.
   */
  static long stamp(RowChange change, long last, long sourceEpoch) {
    long lastEpoch = last < 0 ? -1 : Stamps.epoch(last);
    long epoch = Math.max(sourceEpoch, Math.max(lastEpoch, 0));
    if (change.snapshot && last >= 0 && epoch == lastEpoch) {
      epoch++; // a re-snapshot: whatever the LSNs, it is newer than all the row had
    }
    long lsn = change.lsn >= 0 ? change.lsn : epoch == lastEpoch ? Stamps.lsn(last) : 0;
    return Stamps.of(epoch, lsn);
  }

  /** Per child edge, the row's value of the parent-side join columns (null if any is null). */
  static String[] joinValues(DocumentPlan plan, DocumentPlan.Node node, String valuesJson) {
    String[] joins = new String[node.children().size()];
    if (joins.length == 0) {
      return joins;
    }
    RowValues values = RowValues.of(valuesJson);
    for (int i = 0; i < joins.length; i++) {
      joins[i] = values.key(plan.node(node.children().get(i)).parentColumns());
    }
    return joins;
  }
}
