package dev.weir.documents.definition;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.filter.RowFilter;
import java.util.List;
import java.util.Map;

/**
 * One node of a definition as the file states it (PGSync's format, plus weir's {@code "weir"}
 * extensions), before the source database's catalog fills in what it leaves out.
 *
 * @param path the labels from the root, dot-separated: how errors name the node
 * @param table the table (or, for a topic node, the name it is known by)
 * @param schema the PostgreSQL schema, {@code public} unless named
 * @param columns the columns the document takes (a name, or PGSync's JSON path of a json column,
 *     {@code doc->firstname}); empty: every column of the table
 * @param label the field of the parent document (the table's name unless named)
 * @param relationship how the node joins its parent (null for the root)
 * @param transforms PGSync's {@code transform}, its nested forms moved to the nodes they name
 * @param primaryKey the key columns when the file names them (a view, a topic); else the catalog's
 * @param topic the Kafka topic that feeds this node instead of a table (weir extension), or null
 * @param chain the chain of ancestors whose values this node's field lists ({@code weir.path}), or
 *     null
 * @param where the rows the node takes ({@code weir.where}), its columns not yet bound; or null
 * @param children nodes joined to this one
 */
public record NodeSpec(
    String path,
    String table,
    String schema,
    List<String> columns,
    String label,
    Relationship relationship,
    Transforms transforms,
    List<String> primaryKey,
    TopicSource topic,
    PathSpec chain,
    RowFilter where,
    List<NodeSpec> children) {

  /**
   * A node's {@code transform}, as PGSync applies it to each of the node's rows: {@code replace},
   * then {@code rename}, then {@code concat}.
   *
   * @param rename field → new name (a column, a JSON path's name, or a child's label)
   * @param renameWithin a json column → PGSync's nested rename of the keys inside its value
   * @param replace field (before rename) → search → replacement; or, for a json column, PGSync's
   *     nested spec for inside its value
   * @param concat new text fields of fields (after rename) and literals, in order
   * @param mapping field → Elasticsearch mapping, over the derived one
   * @param move PGSync's {@code move}, which no PGSync version applies: kept to say so, or null
   */
  public record Transforms(
      Map<String, String> rename,
      Map<String, JsonNode> renameWithin,
      Map<String, JsonNode> replace,
      List<ConcatSpec> concat,
      Map<String, JsonNode> mapping,
      JsonNode move) {

    public static final Transforms NONE =
        new Transforms(Map.of(), Map.of(), Map.of(), List.of(), Map.of(), null);
  }

  /** One concat: its columns (fields or literals), the delimiter, the new field. */
  public record ConcatSpec(List<String> columns, String delimiter, String destination) {}

  /** column → field name ({@code transform.rename}). */
  public Map<String, String> rename() {
    return transforms.rename();
  }

  /** field → Elasticsearch mapping ({@code transform.mapping}). */
  public Map<String, JsonNode> mapping() {
    return transforms.mapping();
  }

  public enum Type {
    ONE_TO_ONE,
    ONE_TO_MANY
  }

  public enum Variant {
    OBJECT,
    SCALAR
  }

  /**
   * How a child joins its parent: {@code parent.parentColumns = child.childColumns} (named in the
   * file, or found in the catalog when empty), directly or through link tables.
   */
  public record Relationship(
      Type type,
      Variant variant,
      List<String> parentColumns,
      List<String> childColumns,
      List<String> throughTables) {}

  /**
   * A node fed by a Kafka topic of JSON objects (weir extension {@code "weir": {"topic": ...}}):
   * one row per key, the highest {@code version} wins, a null value or {@code "deleted": true}
   * deletes.
   *
   * @param types field → PostgreSQL type name, for the fields the document takes (no catalog to
   *     ask)
   */
  public record TopicSource(
      String topic, String version, Map<String, String> types, String eventSchema) {}

  /**
   * A scalar node whose field is the list of its column's values along a chain of rows of its own
   * table, from the root of the chain down to the row joined (weir extension {@code "weir":
   * {"path": {"parent": [...], "max_depth": n}}}): a category's path, root → leaf. {@code
   * parentColumns} reference the table's own key; a deeper (or cyclic) chain is cut at {@code
   * maxDepth} rows.
   */
  public record PathSpec(List<String> parentColumns, int maxDepth) {}

  public boolean isTopic() {
    return topic != null;
  }

  /** The field a column is written as in the document. */
  public String fieldOf(String column) {
    return rename().getOrDefault(column, column);
  }
}
