package dev.weir.search.join;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.kafka.Conversion;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.value.Values;
import dev.weir.schema.DeclaredRow;
import dev.weir.schema.InvalidEventException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Events of a topic that feeds a node (the definition's {@code "weir": {"topic": ...}}), as {@link
 * SourceRow}s: one row per key, ordered by its version field (the highest wins, an older or equal
 * version changes nothing: {@link RowTracker}); {@code "deleted": true} deletes it. An event
 * without its key or version, or with a value not of its declared type, goes to the DLQ.
 */
public final class TopicRows implements Conversion<DeclaredRow, SourceRow> {

  private static final long serialVersionUID = 1L;

  private final DocumentPlan.Source source;
  private final List<String> keyColumns;
  private final Set<String> flattenedColumns;

  public TopicRows(DocumentPlan.Source source, List<String> keyColumns) {
    this(source, keyColumns, Set.of());
  }

  /**
   * @param flattenedColumns fields indexed as flattened fields ({@link Values#checkFlattened})
   */
  public TopicRows(
      DocumentPlan.Source source, List<String> keyColumns, Set<String> flattenedColumns) {
    this.source = source;
    this.keyColumns = keyColumns;
    this.flattenedColumns = flattenedColumns;
  }

  @Override
  public SourceRow convert(DeclaredRow event) throws InvalidEventException {
    Map<String, Object> fields = event.fields();
    SourceRow row = new SourceRow();
    row.source = source.name();
    row.deleted = Boolean.TRUE.equals(fields.get("deleted"));
    ObjectNode values = JsonNodeFactory.instance.objectNode();
    try {
      for (String key : keyColumns) {
        if (fields.get(key) == null) {
          throw new IllegalArgumentException("no value for the key field '" + key + "'");
        }
      }
      JsonNode version =
          Values.normalize(source.versionField(), fields.get(source.versionField()), "bigint");
      if (version.isNull() || version.asLong() < 0 || version.asLong() > Stamps.MAX_LSN) {
        throw new IllegalArgumentException(
            "'"
                + source.versionField()
                + "' must be a version from 0 to 2^48-1, not "
                + fields.get(source.versionField()));
      }
      row.lsn = version.asLong();
      for (Map.Entry<String, String> column : source.columns().entrySet()) {
        if (fields.containsKey(column.getKey())) {
          JsonNode value =
              Values.normalize(column.getKey(), fields.get(column.getKey()), column.getValue());
          if (flattenedColumns.contains(column.getKey())) {
            Values.checkFlattened(column.getKey(), value);
          }
          values.set(column.getKey(), value);
        }
      }
    } catch (IllegalArgumentException bad) {
      throw new InvalidEventException(
          "unreadable event of " + source.topic() + ": " + bad.getMessage());
    }
    row.values = values.toString();
    return row;
  }
}
