package dev.weir.search.join;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.kafka.Conversion;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.value.Values;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.InvalidEventException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Debezium change events of one declared table, whichever writer produced them (weir's capture,
 * Debezium Server, Kafka Connect), as {@link SourceRow}s. An event that cannot be read (a value not
 * of its column's type, a row without its key) goes to the DLQ with the reason, before anything of
 * it reaches state; a logical-decoding message is skipped.
 */
public final class ChangeRows implements Conversion<ChangeEvent, SourceRow> {

  private static final long serialVersionUID = 1L;

  private final String document;
  private final DocumentPlan.Source source;
  private final List<String> keyColumns;
  private final Set<String> flattenedColumns;

  /**
   * @param keyColumns the columns every reader node keys the table by (a delete carries only them)
   */
  public ChangeRows(String document, DocumentPlan.Source source, List<String> keyColumns) {
    this(document, source, keyColumns, Set.of());
  }

  /**
   * @param document the document (its index) whose definition declares the table's columns
   * @param flattenedColumns columns indexed as flattened fields ({@link Values#checkFlattened})
   */
  public ChangeRows(
      String document,
      DocumentPlan.Source source,
      List<String> keyColumns,
      Set<String> flattenedColumns) {
    this.document = document;
    this.source = source;
    this.keyColumns = keyColumns;
    this.flattenedColumns = flattenedColumns;
  }

  /**
   * Why a TRUNCATE of {@code table} without a log position goes to the DLQ: which rows it removed
   * cannot be told from those written after it.
   */
  static String truncateWithoutLsn(String table) {
    return "TRUNCATE of "
        + table
        + " has no LSN (source.lsn), so the rows it removed cannot be told from later ones: not"
        + " applied, the documents still hold its rows (docs/document-definitions.md#truncate)";
  }

  /**
   * Why a change without a declared column is not applied: the column was dropped or renamed at the
   * source, and taking the row without it would empty that field of every document it feeds.
   */
  private String missingColumn(String column, ChangeEvent e) {
    return "column '"
        + column
        + "' of "
        + source.name()
        + ", which the definition of document '"
        + document
        + "' declares, is not in this change (op '"
        + e.op()
        + "'; the row has "
        + String.join(", ", e.after().keySet())
        + "): dropped or renamed at the source? The change is not applied, the documents keep"
        + " the row as it was; declare the table's columns as they are now and apply the new"
        + " definition (docs/document-definitions.md#source-schema-changes)";
  }

  @Override
  public SourceRow convert(ChangeEvent e) throws InvalidEventException {
    if ("m".equals(e.op())) {
      return null;
    }
    SourceRow out = new SourceRow();
    out.source = source.name();
    Object lsn = e.source() == null ? null : e.source().get("lsn");
    out.lsn = lsn instanceof Number n ? n.longValue() : -1;
    // The commit time (source.ts_ms); the envelope's ts_ms is when the connector read it.
    Object committed = e.source() == null ? null : e.source().get("ts_ms");
    out.time = committed instanceof Number n ? n.longValue() : Long.MIN_VALUE;
    if ("t".equals(e.op())) {
      if (out.lsn < 0) {
        throw new InvalidEventException(truncateWithoutLsn(source.name()));
      }
      out.truncated = true;
      return out;
    }
    Map<String, Object> row = e.isDelete() ? e.before() : e.after();
    if (row == null) {
      throw new InvalidEventException(
          "op '" + e.op() + "' without '" + (e.isDelete() ? "before" : "after") + "'");
    }
    out.deleted = e.isDelete();
    // An incremental snapshot's read (Debezium's, or weir documents resnapshot) is stamped at a
    // position in the stream and ordered with its changes; only an initial snapshot's read of a
    // known row starts a new epoch.
    Object snapshot = e.source() == null ? null : e.source().get("snapshot");
    out.snapshot = "r".equals(e.op()) && !"incremental".equals(snapshot);
    ObjectNode values = JsonNodeFactory.instance.objectNode();
    List<String> unavailable = new ArrayList<>();
    try {
      for (String column : keyColumns) {
        if (row.get(column) == null) {
          throw new IllegalArgumentException("no value for the key column '" + column + "'");
        }
      }
      for (Map.Entry<String, String> column : source.columns().entrySet()) {
        String name = column.getKey();
        if (!row.containsKey(name)) {
          if (e.isDelete()) {
            continue; // a delete's before has the key only
          }
          throw new InvalidEventException(missingColumn(name, e));
        }
        Object raw = row.get(name);
        if (ChangeEvent.UNAVAILABLE_VALUE.equals(raw)) {
          unavailable.add(name);
          continue;
        }
        JsonNode value = Values.normalize(name, raw, column.getValue());
        if (flattenedColumns.contains(name)) {
          Values.checkFlattened(name, value);
        }
        values.set(name, value);
      }
    } catch (IllegalArgumentException bad) {
      throw new InvalidEventException(
          "unreadable change event of " + source.name() + ": " + bad.getMessage());
    }
    out.values = values.toString();
    out.unavailable = unavailable.isEmpty() ? null : unavailable.toArray(String[]::new);
    return out;
  }
}
