package dev.weir.search.join;

import dev.weir.documents.definition.DocumentPlan;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * A source row as each node that reads its table sees it (a table may be read at several places of
 * a document): keyed by the node's key, with only the columns the node needs (its fields, its join
 * columns), so that state holds nothing the document does not use.
 */
public class NodeRows implements FlatMapFunction<SourceRow, RowChange> {

  private static final long serialVersionUID = 1L;

  private final DocumentPlan plan;

  /** Per node id, the columns it reads ({@link #neededColumns}). */
  private final HashMap<Integer, Set<String>> neededByNode = new HashMap<>();

  public NodeRows(DocumentPlan plan) {
    this.plan = plan;
    for (DocumentPlan.Node node : plan.nodes()) {
      neededByNode.put(node.id(), neededColumns(plan, node));
    }
  }

  @Override
  public void flatMap(SourceRow row, Collector<RowChange> out) throws Exception {
    if (row.truncated) {
      for (DocumentPlan.Node node : plan.readersOf(row.source)) {
        RowChange truncate = new RowChange();
        truncate.node = node.id();
        truncate.truncated = true;
        truncate.lsn = row.lsn;
        truncate.time = row.time;
        out.collect(truncate);
      }
      return;
    }
    RowValues values = RowValues.of(row.values);
    for (DocumentPlan.Node node : plan.readersOf(row.source)) {
      RowChange change = new RowChange();
      change.node = node.id();
      change.key = values.key(node.keyColumns());
      if (change.key == null) {
        continue; // checked when decoded: a row without its key never gets here
      }
      change.deleted = row.deleted;
      change.snapshot = row.snapshot;
      change.lsn = row.lsn;
      change.time = row.time;
      if (!row.deleted) {
        Set<String> needed = neededByNode.get(node.id());
        // A row with only columns the node reads goes on as it came (its large values not copied).
        change.values = needed.containsAll(values.columns()) ? row.values : values.project(needed);
        if (row.unavailable != null) {
          change.unavailable =
              Arrays.stream(row.unavailable).filter(needed::contains).toArray(String[]::new);
        }
      }
      out.collect(change);
    }
  }

  /**
   * The columns a node reads: its fields' (a JSON path's json column), its join columns to its
   * parent and to its children, its filter's.
   */
  static Set<String> neededColumns(DocumentPlan plan, DocumentPlan.Node node) {
    Set<String> columns = new LinkedHashSet<>(node.keyColumns());
    node.fields().stream().filter(f -> f.column() != null).forEach(f -> columns.add(f.column()));
    if (node.filter() != null) {
      columns.addAll(node.filter().columns());
    }
    columns.addAll(node.childColumns());
    for (int child : node.children()) {
      columns.addAll(plan.node(child).parentColumns());
    }
    return columns;
  }
}
