package dev.weir.documents.definition;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.filter.RowFilter;
import dev.weir.documents.transform.Concat;
import dev.weir.documents.transform.FieldTransform;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A definition resolved against the source database's catalog: what the job's operators, the copy
 * and the index are made from. Nodes are numbered root first, each parent before its children; a
 * join through a link table is a node of its own ({@link Node#link}) that adds no field.
 *
 * @param index the Elasticsearch alias the job writes through
 * @param copyTable the Postgres copy's table
 * @param nodes root first
 * @param sources every table or topic a node reads, by {@link Source#name}
 * @param search the index's settings, mappings over the derived ones, routing and pipeline
 */
public record DocumentPlan(
    String database,
    String index,
    String copyTable,
    List<Node> nodes,
    Map<String, Source> sources,
    IndexDefinition search)
    implements Serializable {

  /** Fields of the copy and the Elasticsearch document that weir owns. */
  public static final String DOC_ID = "doc_id";

  public static final String CONTENT_HASH = "content_hash";
  public static final String DOC_VERSION = "doc_version";

  /**
   * One table (or topic) as the job reads it.
   *
   * @param name {@code schema.table}, or {@code topic:<topic>} for a topic node
   * @param columns every column the job reads of it → its PostgreSQL type
   * @param topic the topic of a topic node (else null: the table's change topic is derived)
   * @param versionField a topic node's version field
   * @param eventSchema the event schema a topic node's events are checked against (one of weir's
   *     {@link dev.weir.schema.EventSchema} families), or null: any object of the declared types
   */
  public record Source(
      String name,
      String schema,
      String table,
      Map<String, String> columns,
      String topic,
      String versionField,
      String eventSchema)
      implements Serializable {

    public boolean isTopic() {
      return topic != null;
    }

    public ValueType type(String column) {
      String pg = columns.get(column);
      return pg == null ? ValueType.KEYWORD : ValueType.of(pg);
    }
  }

  /**
   * A field of a node as the document shows it: a column's value, or one PGSync's transforms make
   * of it ({@code transform}: a JSON path, a replace), or a concat of the node's other fields
   * ({@code concat}; {@code column} null).
   *
   * @param column the column the value is read from (a JSON path's json column); null for a concat
   * @param pgType the column's type; {@code jsonb} for a JSON path, {@code text} for a concat
   */
  public record Field(
      String column, String name, String pgType, FieldTransform transform, Concat concat)
      implements Serializable {

    public Field(String column, String name, String pgType) {
      this(column, name, pgType, null, null);
    }

    public ValueType type() {
      return ValueType.of(pgType);
    }

    public boolean isArray() {
      return ValueType.isArray(pgType);
    }
  }

  /**
   * A node: a table joined to its parent on {@code parent.parentColumns = this.childColumns}.
   *
   * @param id its index in {@link #nodes}
   * @param path labels from the root, as errors and metrics name it
   * @param parent the parent's id, -1 for the root
   * @param depth 0 for the root
   * @param many one_to_many: the parent's field is a list
   * @param scalar scalar variant: the field is the one column's value (or a list of them)
   * @param link a link (through) table: adds no field, hands its child's value to its parent
   * @param pathStep a step of a path ({@code weir.path}): its value is its child's list and its own
   *     value after it
   * @param keyColumns the row key (primary key)
   * @param fields the columns the document takes
   * @param filter the rows the node takes ({@code weir.where}), or null: all
   */
  public record Node(
      int id,
      String path,
      String label,
      String source,
      int parent,
      int depth,
      boolean many,
      boolean scalar,
      boolean link,
      boolean pathStep,
      List<String> parentColumns,
      List<String> childColumns,
      List<String> keyColumns,
      List<Field> fields,
      List<Integer> children,
      Map<String, JsonNode> mapping,
      RowFilter filter)
      implements Serializable {

    public boolean isRoot() {
      return parent < 0;
    }
  }

  public Node root() {
    return nodes.get(0);
  }

  public Node node(int id) {
    return nodes.get(id);
  }

  public Source source(Node node) {
    return sources.get(node.source());
  }

  /** The deepest node's depth. */
  public int depth() {
    return nodes.stream().mapToInt(Node::depth).max().orElse(0);
  }

  /** The nodes of one depth. */
  public List<Node> atDepth(int depth) {
    List<Node> at = new ArrayList<>();
    for (Node n : nodes) {
      if (n.depth() == depth) {
        at.add(n);
      }
    }
    return at;
  }

  /** The nodes that read one source. */
  public List<Node> readersOf(String source) {
    List<Node> readers = new ArrayList<>();
    for (Node n : nodes) {
      if (n.source().equals(source)) {
        readers.add(n);
      }
    }
    return readers;
  }

  /**
   * A field of the root document: a column of the root table ({@code pgType} its type), or a child
   * label ({@code child} the node, {@code pgType} null; the copy holds it as jsonb).
   */
  public record DocumentField(String name, String pgType, Node child) implements Serializable {
    public boolean isLabel() {
      return child != null;
    }
  }

  /** This plan with other index settings, mappings, routing or pipeline. */
  public DocumentPlan with(IndexDefinition search) {
    return new DocumentPlan(database, index, copyTable, nodes, sources, search);
  }

  /**
   * The position of the routing field among {@link #documentFields()}, or -1 when documents are
   * routed by their id.
   */
  public int routingField() {
    if (search.routing() == null) {
      return -1;
    }
    List<DocumentField> fields = documentFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(search.routing())) {
        return i;
      }
    }
    throw new IllegalStateException("routing field " + search.routing() + " is not a field");
  }

  /** The root document's fields, in order: the root's columns, then one per child label. */
  public List<DocumentField> documentFields() {
    List<DocumentField> fields = new ArrayList<>();
    for (Field f : root().fields()) {
      fields.add(new DocumentField(f.name(), f.pgType(), null));
    }
    for (int child : root().children()) {
      fields.add(new DocumentField(node(child).label(), null, node(child)));
    }
    return fields;
  }
}
