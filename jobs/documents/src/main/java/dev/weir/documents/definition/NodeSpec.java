package dev.weir.documents.definition;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * One node of a definition as the file states it (PGSync's format, plus weir's {@code "weir"}
 * extensions), before the source database's catalog fills in what it leaves out.
 *
 * @param path the labels from the root, dot-separated: how errors name the node
 * @param table the table (or, for a topic node, the name it is known by)
 * @param schema the PostgreSQL schema, {@code public} unless named
 * @param columns the columns the document takes; empty: every column of the table
 * @param label the field of the parent document (the table's name unless named)
 * @param relationship how the node joins its parent (null for the root)
 * @param rename column → field name in the document ({@code transform.rename})
 * @param mapping field → Elasticsearch mapping ({@code transform.mapping}), overriding the derived
 *     one
 * @param primaryKey the key columns when the file names them (a view, a topic); else the catalog's
 * @param topic the Kafka topic that feeds this node instead of a table (weir extension), or null
 * @param chain the chain of ancestors whose values this node's field lists ({@code weir.path}), or
 *     null
 * @param children nodes joined to this one
 */
public record NodeSpec(
    String path,
    String table,
    String schema,
    List<String> columns,
    String label,
    Relationship relationship,
    Map<String, String> rename,
    Map<String, JsonNode> mapping,
    List<String> primaryKey,
    TopicSource topic,
    PathSpec chain,
    List<NodeSpec> children) {

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
    return rename.getOrDefault(column, column);
  }
}
