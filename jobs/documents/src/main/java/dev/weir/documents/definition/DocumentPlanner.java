package dev.weir.documents.definition;

import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.documents.definition.DocumentPlan.Node;
import dev.weir.documents.definition.DocumentPlan.Source;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import dev.weir.documents.filter.RowFilter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Resolves a definition against the source database's catalog: tables and columns that exist, each
 * node's key, each relationship's columns (from the file, or else from the one foreign key between
 * the two tables), link tables as nodes of their own. Every problem is an error naming the node,
 * before any job starts.
 */
public final class DocumentPlanner {

  private final DocumentSpec document;
  private final SourceCatalog catalog;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, Source> sources = new LinkedHashMap<>();
  private final Map<String, TableInfo> tables = new LinkedHashMap<>();

  private DocumentPlanner(DocumentSpec document, SourceCatalog catalog) {
    this.document = document;
    this.catalog = catalog;
  }

  public static DocumentPlan plan(DocumentSpec document, SourceCatalog catalog) {
    DocumentPlanner planner = new DocumentPlanner(document, catalog);
    try {
      planner.add(document.root(), document.root().label(), -1, 0, List.of(), null);
    } catch (DefinitionException e) {
      throw new DefinitionException("document '" + document.index() + "', " + e.getMessage());
    }
    DocumentPlan plan =
        new DocumentPlan(
            document.database(),
            document.index(),
            document.copyTable(),
            List.copyOf(planner.nodes),
            Collections.unmodifiableMap(new LinkedHashMap<>(planner.sources)),
            document.search());
    requireRoutingField(plan);
    requireMappedFields(plan);
    return plan;
  }

  /** A mapping over a field the document does not have is a typo, not a new field. */
  private static void requireMappedFields(DocumentPlan plan) {
    Set<String> rootFields = new HashSet<>();
    plan.root().fields().forEach(f -> rootFields.add(f.name()));
    plan.root().children().forEach(c -> rootFields.add(plan.nodes().get(c).label()));
    for (String field : new TreeSet<>(plan.search().mappedFields())) {
      if (!rootFields.contains(field)) {
        throw new DefinitionException(
            "document '"
                + plan.index()
                + "': mapping names '"
                + field
                + "', which is not a field of the document");
      }
    }
  }

  /**
   * The routing field is a column of the root (its value known with the root row), of one value
   * that reads as a routing text: not a list, not JSON.
   */
  private static void requireRoutingField(DocumentPlan plan) {
    String routing = plan.search().routing();
    if (routing == null) {
      return;
    }
    List<String> columns = new ArrayList<>();
    for (Field f : plan.root().fields()) {
      if (f.name().equals(routing)) {
        if (f.isArray() || f.type() == ValueType.JSON) {
          throw new DefinitionException(
              "document '"
                  + plan.index()
                  + "': routing '"
                  + routing
                  + "' is a "
                  + f.pgType()
                  + " column: a document is routed by one value (a key, a name, a number)");
        }
        return;
      }
      columns.add(f.name());
    }
    throw new DefinitionException(
        "document '"
            + plan.index()
            + "': routing '"
            + routing
            + "' is not a field of the root "
            + plan.root().label()
            + " (its fields: "
            + String.join(", ", columns)
            + ")");
  }

  /** Adds a node (and its children); returns its id. */
  private int add(
      NodeSpec spec, String label, int parent, int depth, List<String> ancestors, Edge edge) {
    TableInfo table = table(spec);
    List<String> key = spec.primaryKey().isEmpty() ? table.primaryKey() : spec.primaryKey();
    if (key.isEmpty()) {
      throw DefinitionException.at(
          spec.path(),
          "table " + table.qualifiedName() + " has no primary key: name one with \"primary_key\"");
    }
    requireColumns(spec.path(), table, key, "primary_key");
    List<String> columns =
        spec.columns().isEmpty() ? List.copyOf(table.columns().keySet()) : spec.columns();
    List<Field> fields = NodeFields.of(spec, table, columns, labels(spec));
    if (spec.relationship() != null
        && spec.relationship().variant() == NodeSpec.Variant.SCALAR
        && fields.size() != 1) {
      throw DefinitionException.at(
          spec.path(), "a scalar variant takes exactly one column, not " + fields.size());
    }
    Set<String> names = new HashSet<>();
    fields.forEach(f -> names.add(f.name()));
    for (NodeSpec child : spec.children()) {
      if (!names.add(labelOf(spec, child))) {
        throw DefinitionException.at(
            child.path(),
            "its label '" + labelOf(spec, child) + "' is also a field of " + spec.path());
      }
    }
    if (parent < 0) {
      for (String reserved :
          List.of(DocumentPlan.DOC_ID, DocumentPlan.CONTENT_HASH, DocumentPlan.DOC_VERSION)) {
        if (names.contains(reserved)) {
          throw DefinitionException.at(
              spec.path(), "'" + reserved + "' is weir's own field: rename the column");
        }
      }
    }
    for (String field : spec.mapping().keySet()) {
      if (!names.contains(field)) {
        throw DefinitionException.at(
            spec.path(), "transform.mapping names '" + field + "', which is not one of its fields");
      }
    }
    RowFilter filter = bound(spec, table);
    String source = source(spec, table);
    int id = nodes.size();
    boolean many = edge != null && edge.many;
    boolean scalar =
        spec.relationship() != null && spec.relationship().variant() == NodeSpec.Variant.SCALAR;
    List<Integer> children = new ArrayList<>();
    nodes.add(null); // the id is taken; the node is set once its children are known
    List<String> path = new ArrayList<>(ancestors);
    path.add(table.qualifiedName());
    for (NodeSpec child : spec.children()) {
      children.add(addChild(child, labelOf(spec, child), table, id, depth + 1, path));
    }
    if (spec.chain() != null) {
      if (!spec.children().isEmpty()) {
        throw DefinitionException.at(spec.path(), "a weir.path node has no children");
      }
      List<String> up = spec.chain().parentColumns();
      requireColumns(spec.path(), table, up, "weir.path.parent");
      if (up.size() != key.size()) {
        throw DefinitionException.at(
            spec.path(),
            "weir.path.parent names %d columns, the key of %s %d"
                .formatted(up.size(), table.qualifiedName(), key.size()));
      }
      sameTypes(spec.path(), table, up, table, key);
      if (spec.chain().maxDepth() > 1) {
        children.add(addPathStep(spec, label, source, key, fields, filter, id, depth + 1, 1));
      }
    }
    nodes.set(
        id,
        new Node(
            id,
            spec.path(),
            label,
            source,
            parent,
            depth,
            many,
            scalar,
            false,
            spec.chain() != null,
            edge == null ? List.of() : edge.parentColumns,
            edge == null ? List.of() : edge.childColumns,
            key,
            List.copyOf(fields),
            List.copyOf(children),
            Map.copyOf(spec.mapping()),
            filter));
    return id;
  }

  private record Edge(List<String> parentColumns, List<String> childColumns, boolean many) {}

  /** A child's field in its parent: its label, or the parent's rename of it. */
  private static String labelOf(NodeSpec parent, NodeSpec child) {
    return parent.rename().getOrDefault(child.label(), child.label());
  }

  /** The fields of the node's children, by their labels as the file names them. */
  private static Set<String> labels(NodeSpec spec) {
    Set<String> labels = new HashSet<>();
    spec.children().forEach(c -> labels.add(c.label()));
    return labels;
  }

  /** The node's filter bound to its columns' types; its errors name the node and the position. */
  private static RowFilter bound(NodeSpec spec, TableInfo table) {
    if (spec.where() == null) {
      return null;
    }
    try {
      return spec.where().bind(table.columns());
    } catch (RowFilter.FilterException e) {
      throw DefinitionException.at(
          spec.path(),
          "weir.where, at "
              + e.position()
              + ": "
              + e.getMessage()
              + " (read as: "
              + spec.where()
              + ")");
    }
  }

  /**
   * One more row up a path: the same table, joined on {@code parent row's path columns = this row's
   * key}, to {@code maxDepth} rows in all.
   */
  private int addPathStep(
      NodeSpec spec,
      String label,
      String source,
      List<String> key,
      List<Field> fields,
      RowFilter filter,
      int parent,
      int depth,
      int step) {
    int id = nodes.size();
    nodes.add(null);
    List<Integer> children =
        step + 1 < spec.chain().maxDepth()
            ? List.of(
                addPathStep(spec, label, source, key, fields, filter, id, depth + 1, step + 1))
            : List.of();
    nodes.set(
        id,
        new Node(
            id,
            spec.path() + "^" + step,
            label,
            source,
            parent,
            depth,
            false,
            true,
            false,
            true,
            spec.chain().parentColumns(),
            key,
            key,
            List.copyOf(fields),
            children,
            Map.of(),
            filter));
    return id;
  }

  /** A child, directly or through a link table (a node of its own between the two). */
  private int addChild(
      NodeSpec child,
      String label,
      TableInfo parent,
      int parentId,
      int depth,
      List<String> ancestors) {
    NodeSpec.Relationship r = child.relationship();
    boolean many = r.type() == NodeSpec.Type.ONE_TO_MANY;
    TableInfo childTable = table(child);
    if (ancestors.contains(childTable.qualifiedName()) && r.parentColumns().isEmpty()) {
      throw DefinitionException.at(
          child.path(),
          "a cycle: "
              + childTable.qualifiedName()
              + " is also one of its ancestors; name the relationship's foreign_key to join a"
              + " table to itself");
    }
    if (r.throughTables().isEmpty()) {
      Edge edge;
      if (!r.parentColumns().isEmpty()) {
        requireColumns(child.path(), parent, r.parentColumns(), "foreign_key.parent");
        requireColumns(child.path(), childTable, r.childColumns(), "foreign_key.child");
        edge = new Edge(r.parentColumns(), r.childColumns(), many);
      } else {
        edge = foreignKey(child.path(), parent, childTable, many);
      }
      sameTypes(child.path(), parent, edge.parentColumns, childTable, edge.childColumns);
      return add(child, label, parentId, depth, ancestors, edge);
    }
    // parent ← link → child: the link table is a node between them.
    String linkName = r.throughTables().get(0);
    TableInfo link = lookup(child.path(), child.schema(), linkName);
    Edge toParent = oneForeignKey(child.path(), link, parent);
    Edge toChild = oneForeignKey(child.path(), link, childTable);
    sameTypes(child.path(), parent, toParent.parentColumns, link, toParent.childColumns);
    sameTypes(child.path(), childTable, toChild.parentColumns, link, toChild.childColumns);
    String linkSource = register(link);
    int linkId = nodes.size();
    nodes.add(null);
    int childId =
        add(
            child,
            label,
            linkId,
            depth + 1,
            ancestors,
            // link.toChild columns = child's referenced columns; one child per link row.
            new Edge(toChild.childColumns, toChild.parentColumns, false));
    nodes.set(
        linkId,
        new Node(
            linkId,
            child.path() + "#" + link.table(),
            label,
            linkSource,
            parentId,
            depth,
            many,
            false,
            true,
            false,
            toParent.parentColumns,
            toParent.childColumns,
            link.primaryKey().isEmpty() ? List.copyOf(link.columns().keySet()) : link.primaryKey(),
            List.of(),
            List.of(childId),
            Map.of(),
            null));
    return linkId;
  }

  /**
   * The one foreign key from {@code link} to {@code target}, as an edge target → link: {@code
   * parentColumns} on the target, {@code childColumns} on the link.
   */
  private static Edge oneForeignKey(String path, TableInfo link, TableInfo target) {
    List<ForeignKey> found =
        link.foreignKeys().stream().filter(fk -> fk.references(target)).toList();
    if (found.size() != 1) {
      throw DefinitionException.at(
          path,
          "link table "
              + link.qualifiedName()
              + (found.isEmpty() ? " has no foreign key to " : " has several foreign keys to ")
              + target.qualifiedName());
    }
    return new Edge(found.get(0).referencedColumns(), found.get(0).columns(), true);
  }

  /** The one foreign key between parent and child, in either direction. */
  private static Edge foreignKey(String path, TableInfo parent, TableInfo child, boolean many) {
    List<Edge> found = new ArrayList<>();
    List<String> described = new ArrayList<>();
    for (ForeignKey fk : child.foreignKeys()) {
      if (fk.references(parent)) {
        found.add(new Edge(fk.referencedColumns(), fk.columns(), many));
        described.add(
            child.table() + fk.columns() + " → " + parent.table() + fk.referencedColumns());
      }
    }
    for (ForeignKey fk : parent.foreignKeys()) {
      if (fk.references(child) && !(parent == child)) {
        found.add(new Edge(fk.columns(), fk.referencedColumns(), many));
        described.add(
            parent.table() + fk.columns() + " → " + child.table() + fk.referencedColumns());
      }
    }
    if (found.size() == 1) {
      return found.get(0);
    }
    throw DefinitionException.at(
        path,
        found.isEmpty()
            ? "no foreign key joins "
                + child.qualifiedName()
                + " to its parent "
                + parent.qualifiedName()
                + ": name the columns in relationship.foreign_key {\"parent\": [...], \"child\":"
                + " [...]}"
            : "the relationship is ambiguous, "
                + found.size()
                + " foreign keys join the tables ("
                + String.join("; ", described)
                + "): name one in relationship.foreign_key");
  }

  private TableInfo table(NodeSpec spec) {
    if (spec.isTopic()) {
      NodeSpec.TopicSource t = spec.topic();
      LinkedHashMap<String, String> columns = new LinkedHashMap<>(t.types());
      for (String c : spec.primaryKey()) {
        columns.putIfAbsent(c, "text");
      }
      for (String c : spec.relationship().childColumns()) {
        columns.putIfAbsent(c, "text");
      }
      columns.putIfAbsent(t.version(), "bigint");
      for (String c : spec.columns()) {
        if (!t.types().containsKey(c)) {
          throw DefinitionException.at(
              spec.path(), "weir.types does not give the type of '" + c + "'");
        }
      }
      TableInfo table = new TableInfo("topic", t.topic(), columns, spec.primaryKey(), List.of());
      if (!ValueType.INTEGER.equals(ValueType.of(columns.get(t.version())))) {
        throw DefinitionException.at(spec.path(), "the version field must be an integer type");
      }
      return table;
    }
    return lookup(spec.path(), spec.schema(), spec.table());
  }

  private TableInfo lookup(String path, String schema, String name) {
    String qualified = schema + "." + name;
    TableInfo known = tables.get(qualified);
    if (known != null) {
      return known;
    }
    TableInfo table;
    try {
      table =
          catalog
              .table(schema, name)
              .orElseThrow(
                  () ->
                      DefinitionException.at(
                          path,
                          "table "
                              + qualified
                              + " does not exist in database '"
                              + document.database()
                              + "'"));
    } catch (DefinitionException e) {
      throw e;
    } catch (Exception e) {
      throw DefinitionException.at(path, "cannot read the catalog of " + qualified + ": " + e);
    }
    tables.put(qualified, table);
    return table;
  }

  private String source(NodeSpec spec, TableInfo table) {
    if (spec.isTopic()) {
      String name = "topic:" + spec.topic().topic();
      Source declared =
          new Source(
              name,
              null,
              spec.topic().topic(),
              table.columns(),
              spec.topic().topic(),
              spec.topic().version(),
              spec.topic().eventSchema());
      // Several nodes may read one topic (a price and its currency as two fields): all their
      // fields are read.
      sources.merge(
          name,
          declared,
          (a, b) -> {
            if (!Objects.equals(a.versionField(), b.versionField())
                || !Objects.equals(a.eventSchema(), b.eventSchema())) {
              throw DefinitionException.at(
                  spec.path(),
                  "another node reads topic "
                      + a.topic()
                      + " with another weir.version or weir.event_schema: they must agree");
            }
            Map<String, String> columns = new LinkedHashMap<>(a.columns());
            b.columns().forEach(columns::putIfAbsent);
            return new Source(
                name, null, a.table(), columns, a.topic(), a.versionField(), a.eventSchema());
          });
      return name;
    }
    return register(table);
  }

  private String register(TableInfo table) {
    sources.putIfAbsent(
        table.qualifiedName(),
        new Source(
            table.qualifiedName(),
            table.schema(),
            table.table(),
            new LinkedHashMap<>(table.columns()),
            null,
            null,
            null));
    return table.qualifiedName();
  }

  /**
   * A join compares its values in weir's form of their column's type ({@link ValueType}): both
   * sides must have the same form (text and keyword types are both strings).
   */
  private static void sameTypes(
      String path,
      TableInfo parent,
      List<String> parentColumns,
      TableInfo child,
      List<String> childColumns) {
    for (int i = 0; i < parentColumns.size(); i++) {
      String p = parent.columns().get(parentColumns.get(i));
      String c = child.columns().get(childColumns.get(i));
      if (!joinForm(p).equals(joinForm(c))) {
        throw DefinitionException.at(
            path,
            "the join compares %s.%s (%s) with %s.%s (%s): a join compares values of one type"
                .formatted(
                    parent.qualifiedName(),
                    parentColumns.get(i),
                    p,
                    child.qualifiedName(),
                    childColumns.get(i),
                    c));
      }
    }
  }

  private static String joinForm(String pgType) {
    ValueType type = ValueType.of(pgType);
    return (type == ValueType.KEYWORD ? ValueType.TEXT : type)
        + (ValueType.isArray(pgType) ? "[]" : "");
  }

  static void requireColumns(String path, TableInfo table, List<String> columns, String what) {
    for (String column : columns) {
      if (!table.columns().containsKey(column)) {
        throw DefinitionException.at(
            path,
            what
                + " names '"
                + column
                + "', which is not a column of "
                + table.qualifiedName()
                + " (it has "
                + String.join(", ", table.columns().keySet())
                + ")");
      }
    }
  }
}
