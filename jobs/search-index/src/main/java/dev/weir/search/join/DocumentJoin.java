package dev.weir.search.join;

import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The join of a declared document, from the rows of its tables to its documents, unrolled by depth
 * (Flink's graphs have no cycles): every row first goes through the {@link RowTracker}; then, from
 * the deepest level up, each level's {@link NodeAssembler} puts rows together with their labels and
 * that level's {@link EdgeJoin} hands the results to the parent rows; at the top the {@link
 * DocumentAssembler} emits the documents.
 *
 * <pre>
 * rows → track → assemble(depth D) → edge(D) → assemble(D-1) → edge(D-1) … → assemble(root)
 *          └────── registrations of each edge ──────┘
 * </pre>
 *
 * No table is broadcast or assumed small: every state is keyed, by row or by join value. Only a
 * table's TRUNCATE is broadcast, to every tracker.
 */
public final class DocumentJoin {

  /** The join's settings. */
  public record Settings(Duration coalesce, long sourceEpoch, Duration tombstoneTtl)
      implements Serializable {}

  private DocumentJoin() {}

  /**
   * @param tables the rows of each table (or topic) the plan reads, by its name
   */
  public static DataStream<DocumentChange> join(
      Map<String, DataStream<SourceRow>> tables, DocumentPlan plan, Settings settings, String uid) {
    DataStream<RowChange> rows = null;
    for (Map.Entry<String, DataStream<SourceRow>> table : tables.entrySet()) {
      // In the table's source task, before the tables meet: a row crosses to another task once.
      DataStream<RowChange> changes =
          table
              .getValue()
              .flatMap(new NodeRows(plan))
              .returns(RowChange.class)
              .uid(uid + "-rows-" + table.getKey())
              .name("rows by node");
      rows = rows == null ? changes : rows.union(changes);
    }
    // A truncate names no row: every tracker gets it, and deletes the rows of its table it holds.
    DataStream<RowChange> truncates =
        rows.filter(c -> c.truncated).uid(uid + "-truncates").name("truncates");
    SingleOutputStreamOperator<NodeRow> tracked =
        rows.filter(c -> !c.truncated)
            .uid(uid + "-changes")
            .name("row changes")
            .keyBy(RowChange::stateKey)
            .connect(truncates.broadcast(RowTracker.TRUNCATED))
            .process(new RowTracker(plan, settings.sourceEpoch(), settings.tombstoneTtl()))
            .returns(NodeRow.class)
            .uid(uid + "-track")
            .name("track rows");
    DataStream<Registration> registrations = tracked.getSideOutput(RowTracker.REGISTRATIONS);

    DataStream<LabelValue> labels = null;
    for (int depth = plan.depth(); depth >= 1; depth--) {
      int level = depth;
      DataStream<ChildValue> children =
          assemblerInput(plan, tracked, labels, level, uid)
              .keyBy(AssemblerInput::stateKey)
              .process(new NodeAssembler(plan, settings.coalesce(), settings.tombstoneTtl()))
              .returns(ChildValue.class)
              .uid(uid + "-assemble-" + level)
              .name("assemble depth " + level);
      labels =
          children
              .map(EdgeInput::of)
              .returns(EdgeInput.class)
              .uid(uid + "-children-" + level)
              .name("children of depth " + level)
              .union(
                  registrations
                      .filter(r -> plan.node(r.edge).depth() == level)
                      .uid(uid + "-registrations-" + level)
                      .name("registrations of depth " + level)
                      .map(EdgeInput::of)
                      .returns(EdgeInput.class)
                      .uid(uid + "-parents-" + level)
                      .name("parents of depth " + level))
              .keyBy(EdgeInput::stateKey)
              .process(new EdgeJoin(plan, settings.coalesce()))
              .returns(LabelValue.class)
              .uid(uid + "-edge-" + level)
              .name("join depth " + level + " to its parents");
    }
    return assemblerInput(plan, tracked, labels, 0, uid)
        .keyBy(AssemblerInput::stateKey)
        .process(new DocumentAssembler(plan, settings.coalesce(), settings.tombstoneTtl()))
        .returns(TypeInformation.of(DocumentChange.class))
        .uid(uid + "-assemble-root")
        .name("assemble documents");
  }

  /** The rows of one depth's nodes and the values of their labels (none at the deepest). */
  private static DataStream<AssemblerInput> assemblerInput(
      DocumentPlan plan,
      SingleOutputStreamOperator<NodeRow> tracked,
      DataStream<LabelValue> labels,
      int depth,
      String uid) {
    DataStream<AssemblerInput> rows =
        tracked
            .filter(r -> plan.node(r.node).depth() == depth)
            .uid(uid + "-rows-" + depth)
            .name("rows of depth " + depth)
            .map(AssemblerInput::of)
            .returns(AssemblerInput.class)
            .uid(uid + "-row-inputs-" + depth)
            .name("rows of depth " + depth);
    if (labels == null) {
      return rows;
    }
    return rows.union(
        labels
            .map(AssemblerInput::of)
            .returns(AssemblerInput.class)
            .uid(uid + "-label-inputs-" + depth)
            .name("labels of depth " + depth));
  }
}
