package dev.weir.documents.definition;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.filter.RowFilter;
import dev.weir.documents.filter.RowFilterParser;
import dev.weir.documents.transform.JsonPath;
import dev.weir.schema.EventSchema;
import dev.weir.schema.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads a document definition: PGSync's {@code schema.json} as it is (a list of {@code {database,
 * index, nodes}}; {@code nodes} an object, or a one-element list as older files have it), plus
 * weir's extensions, each under a key {@code "weir"}: on a document, {@code copy_table}; on a node,
 * {@code topic}, {@code version}, {@code types} and {@code event_schema} (a node fed by Kafka),
 * {@code path} (a path up a tree), {@code where} (the rows it takes). PGSync's transforms are read
 * by {@link TransformSpecs}, its JSON-path columns by {@link JsonPath}, its index keys ({@code
 * setting}, {@code mapping}, {@code mappings}, {@code routing}, {@code pipeline}) into an {@link
 * IndexDefinition}. PGSync's {@code plugins}, which weir cannot run, are refused, not silently
 * ignored, unless they are empty; so is any other key weir does not read.
 */
public final class DefinitionFile {

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,62}");
  private static final Set<String> DOCUMENT_KEYS =
      Set.of(
          "database",
          "index",
          "nodes",
          "weir",
          "setting",
          "mapping",
          "mappings",
          "routing",
          "pipeline");

  /** PGSync's keys that weir does not apply, and why: refused unless empty (null, [] or {}). */
  private static final Map<String, String> PGSYNC_ONLY =
      Map.of("plugins", "PGSync's plugins, Python code that weir cannot run");

  private static final Set<String> NODE_KEYS =
      Set.of(
          "table",
          "schema",
          "columns",
          "label",
          "children",
          "relationship",
          "transform",
          "primary_key",
          "weir");

  private DefinitionFile() {}

  public static List<DocumentSpec> read(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new DefinitionException("cannot read the definition " + file + ": " + e.getMessage());
    } catch (DefinitionException e) {
      throw new DefinitionException(file + ": " + e.getMessage());
    }
  }

  public static List<DocumentSpec> parse(String json) {
    JsonNode tree;
    try {
      tree = Json.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new DefinitionException("not JSON: " + e.getOriginalMessage());
    }
    if (tree == null || !tree.isArray() || tree.isEmpty()) {
      throw new DefinitionException(
          "a definition is a list of documents: [{\"database\": ..., \"index\": ..., \"nodes\":"
              + " {...}}]");
    }
    List<DocumentSpec> documents = new ArrayList<>();
    Map<String, String> indexes = new HashMap<>(); // index → the document's place
    Map<String, String> copies = new HashMap<>(); // copy table → the document's index
    for (int i = 0; i < tree.size(); i++) {
      String place = "documents[" + i + "]";
      DocumentSpec d = document(tree.get(i), place);
      String other = indexes.putIfAbsent(d.index(), place);
      if (other != null) {
        throw new DefinitionException(
            "document '%s' (%s): %s writes the index '%s' too"
                .formatted(d.index(), place, other, d.index()));
      }
      other = copies.putIfAbsent(d.copyTable(), d.index());
      if (other != null) {
        throw new DefinitionException(
            "document '%s': document '%s' writes the copy table '%s' too"
                .formatted(d.index(), other, d.copyTable()));
      }
      documents.add(d);
    }
    return documents;
  }

  /** A document; {@code place} names it ({@code documents[0]}) until its index is known. */
  private static DocumentSpec document(JsonNode d, String place) {
    if (!d.isObject()) {
      throw new DefinitionException(place + " is an object with database, index and nodes");
    }
    String index = text(d, "index", place);
    String database =
        requiredText(d, "database", index == null ? place : "document '" + index + "'");
    if (index == null) {
      index = database; // as PGSync does
    }
    String where = "document '" + index + "'";
    unknownKeys(d, DOCUMENT_KEYS, where);
    if (!index.matches("[a-z0-9][a-z0-9_.-]{0,200}")) {
      throw new DefinitionException(
          where + ": the index name must be lower case letters, digits, '_', '-' or '.'");
    }
    JsonNode nodes = d.get("nodes");
    if (nodes != null && nodes.isArray()) {
      if (nodes.size() != 1) {
        throw new DefinitionException(where + ": 'nodes' as a list must hold exactly one node");
      }
      nodes = nodes.get(0);
    }
    if (nodes == null || !nodes.isObject()) {
      throw new DefinitionException(where + ": 'nodes' must be the root node (an object)");
    }
    nodes = nodes.deepCopy();
    JsonNode weir = d.path("weir");
    unknownKeys(weir, Set.of("copy_table"), where + ", 'weir'");
    String copyTable = text(weir, "copy_table", where);
    if (copyTable == null) {
      copyTable = index.replaceAll("[^a-z0-9_]", "_") + "_document";
    }
    name(copyTable, where + ": weir.copy_table");
    IndexDefinition search = indexDefinition(d, where);
    try {
      TransformSpecs.nest(nodes, nodes.path("label").asText(nodes.path("table").asText("nodes")));
      NodeSpec root = node(nodes, "nodes", null);
      return new DocumentSpec(database, index, copyTable, root, search);
    } catch (DefinitionException e) {
      throw new DefinitionException(where + ", " + e.getMessage());
    }
  }

  /**
   * PGSync's index keys of a document: {@code setting} (index settings), {@code mappings} (a
   * mappings object) and {@code mapping} (as PGSync reads it: the fields' mappings, or a whole
   * mappings object when it has {@code dynamic_templates}), {@code routing} and {@code pipeline}.
   */
  private static IndexDefinition indexDefinition(JsonNode d, String where) {
    JsonNode setting = objectOrNothing(d, "setting", where);
    JsonNode mappings = objectOrNothing(d, "mappings", where);
    JsonNode mapping = objectOrNothing(d, "mapping", where);
    var merged = Json.mapper().createObjectNode();
    IndexDefinition.merge(merged, mappings);
    if (mapping.has("dynamic_templates")) {
      IndexDefinition.merge(merged, mapping);
    } else if (!mapping.isEmpty()) {
      mapping.forEach(
          field -> {
            if (!field.isObject()) {
              throw new DefinitionException(
                  where
                      + ": 'mapping' must be an object of objects (field → mapping), not "
                      + mapping);
            }
          });
      IndexDefinition.merge(merged, Json.mapper().createObjectNode().set("properties", mapping));
    }
    for (String owned : List.of(DocumentPlan.CONTENT_HASH)) {
      if (merged.path("properties").has(owned)) {
        throw new DefinitionException(
            where + ": the mapping of '" + owned + "' is weir's own (it compares documents by it)");
      }
    }
    String routing = d.path("routing").isNull() ? null : text(d, "routing", where);
    String pipeline = d.path("pipeline").isNull() ? null : text(d, "pipeline", where);
    Set<String> mappedFields = new TreeSet<>();
    if (!mapping.has("dynamic_templates")) {
      mapping.fieldNames().forEachRemaining(mappedFields::add);
    }
    return new IndexDefinition(
        IndexDefinition.normalizedSettings(setting),
        merged,
        routing,
        pipeline,
        Set.copyOf(mappedFields));
  }

  /** The object under {@code key}; an empty one when absent or null; anything else refused. */
  private static JsonNode objectOrNothing(JsonNode n, String key, String where) {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      return Json.mapper().createObjectNode();
    }
    if (!v.isObject()) {
      throw new DefinitionException(where + ": '" + key + "' must be an object, not " + v);
    }
    return v;
  }

  /**
   * A node; {@code place} names it ({@code nodes}, {@code book.children[0]}) until its label is
   * known, then its path of labels does; {@code parentPath} is null for the root.
   */
  private static NodeSpec node(JsonNode n, String place, String parentPath) {
    boolean root = parentPath == null;
    if (!n.isObject()) {
      throw DefinitionException.at(place, "a node is an object, not " + n);
    }
    String table = nameAt(n, "table", place);
    String named = table == null ? place : root ? table : parentPath + "." + table;
    String label = nameAt(n, "label", named);
    if (label == null) {
      label = table;
    }
    String path = label == null ? place : root ? label : parentPath + "." + label;
    unknownKeys(n, NODE_KEYS, "node '" + path + "'");
    if (table == null) {
      throw DefinitionException.at(path, "'table' is required");
    }
    name(table, "node '" + path + "': table");
    name(label, "node '" + path + "': label");
    String schema = nameAt(n, "schema", path);
    if (schema == null) {
      schema = "public";
    }
    name(schema, "node '" + path + "': schema");
    List<String> columns = columns(n, path);
    List<String> primaryKey = names(n, "primary_key", path);

    NodeSpec.Relationship relationship = null;
    JsonNode r = n.get("relationship");
    if (root) {
      if (r != null) {
        throw DefinitionException.at(path, "the root node has no relationship");
      }
    } else {
      if (r == null || !r.isObject()) {
        throw DefinitionException.at(
            path, "a child needs a 'relationship' with 'type' and 'variant'");
      }
      relationship = relationship(r, path);
    }

    JsonNode transform = n.get("transform");
    if (transform != null) {
      unknownKeys(
          transform,
          Set.of("rename", "mapping", "replace", "concat", "move"),
          "node '" + path + "': transform");
    }
    NodeSpec.Transforms transforms = TransformSpecs.read(transform, path);

    NodeSpec.TopicSource topic = null;
    NodeSpec.PathSpec pathSpec = null;
    RowFilter where = null;
    JsonNode weir = n.get("weir");
    if (weir != null) {
      unknownKeys(
          weir,
          Set.of("topic", "version", "types", "event_schema", "path", "where"),
          "node '" + path + "': weir");
      if (weir.has("path")) {
        pathSpec = pathSpec(weir.get("path"), path, root, relationship);
      }
      if (weir.has("where")) {
        where = where(weir.get("where"), path);
      }
      if (weir.has("topic") || !weir.has("path") && !weir.has("where")) {
        topic = topicSource(weir, path, root, primaryKey, relationship);
      } else {
        for (String key : List.of("version", "types", "event_schema")) {
          if (weir.has(key)) {
            throw DefinitionException.at(
                path, "weir." + key + " is for a topic node: it has no weir.topic");
          }
        }
      }
    }

    List<NodeSpec> children = new ArrayList<>();
    JsonNode c = n.get("children");
    if (c != null && !c.isArray()) {
      throw DefinitionException.at(path, "'children' must be a list");
    }
    if (c != null && !c.isEmpty() && !root && relationship.variant() == NodeSpec.Variant.SCALAR) {
      throw DefinitionException.at(
          path, "a scalar variant's field is one column's value: it has no children");
    }
    Set<String> labels = new HashSet<>();
    if (c != null) {
      for (int i = 0; i < c.size(); i++) {
        NodeSpec spec = node(c.get(i), path + ".children[" + i + "]", path);
        if (!labels.add(spec.label())) {
          throw DefinitionException.at(
              spec.path(), "two children have the label '" + spec.label() + "'");
        }
        children.add(spec);
      }
    }
    return new NodeSpec(
        path,
        table,
        schema,
        columns,
        label,
        relationship,
        transforms,
        primaryKey,
        topic,
        pathSpec,
        where,
        List.copyOf(children));
  }

  private static NodeSpec.TopicSource topicSource(
      JsonNode weir,
      String path,
      boolean root,
      List<String> primaryKey,
      NodeSpec.Relationship relationship) {
    String name = requiredText(weir, "topic", "node '" + path + "': weir");
    String version = requiredText(weir, "version", "node '" + path + "': weir");
    Map<String, String> types = new LinkedHashMap<>();
    object(weir, "types", "weir.types", path)
        .fields()
        .forEachRemaining(
            e -> {
              name(e.getKey(), "node '" + path + "': weir.types");
              if (!e.getValue().isTextual() || e.getValue().asText().isBlank()) {
                throw DefinitionException.at(
                    path,
                    "weir.types."
                        + e.getKey()
                        + " must be a PostgreSQL type name, not "
                        + e.getValue());
              }
              types.put(e.getKey(), e.getValue().asText());
            });
    if (root) {
      throw DefinitionException.at(path, "the root must be a table, not a topic");
    }
    if (primaryKey.isEmpty()) {
      throw DefinitionException.at(path, "a topic node names its key: \"primary_key\": [...]");
    }
    if (relationship.parentColumns().isEmpty()) {
      throw DefinitionException.at(
          path, "a topic node names its relationship's foreign_key (no catalog to ask)");
    }
    String eventSchema = null;
    if (weir.has("event_schema")) {
      eventSchema = requiredText(weir, "event_schema", "node '" + path + "': weir");
      if (EventSchema.topicFamily(eventSchema).isEmpty()) {
        throw DefinitionException.at(
            path,
            "weir.event_schema '"
                + eventSchema
                + "' is not one of weir's event schemas ("
                + String.join(", ", EventSchema.topicFamilies())
                + ")");
      }
    }
    return new NodeSpec.TopicSource(name, version, types, eventSchema);
  }

  private static NodeSpec.PathSpec pathSpec(
      JsonNode p, String path, boolean root, NodeSpec.Relationship relationship) {
    unknownKeys(p, Set.of("parent", "max_depth"), "node '" + path + "': weir.path");
    if (root
        || relationship.variant() != NodeSpec.Variant.SCALAR
        || relationship.type() != NodeSpec.Type.ONE_TO_ONE) {
      throw DefinitionException.at(path, "weir.path is for a one_to_one scalar child");
    }
    List<String> parent = names(p, "parent", path);
    if (parent.isEmpty()) {
      throw DefinitionException.at(path, "weir.path names its parent columns: \"parent\": [...]");
    }
    JsonNode depth = p.path("max_depth");
    int maxDepth = depth.isMissingNode() ? 16 : depth.asInt();
    if (!depth.isMissingNode() && !depth.isInt() || maxDepth < 1 || maxDepth > 64) {
      throw DefinitionException.at(path, "weir.path.max_depth must be 1..64, not " + depth);
    }
    return new NodeSpec.PathSpec(parent, maxDepth);
  }

  private static NodeSpec.Relationship relationship(JsonNode r, String path) {
    unknownKeys(
        r,
        Set.of("type", "variant", "foreign_key", "through_tables"),
        "node '" + path + "': relationship");
    NodeSpec.Type type = choice(r, "type", NodeSpec.Type.class, path);
    NodeSpec.Variant variant = choice(r, "variant", NodeSpec.Variant.class, path);
    List<String> parent = List.of();
    List<String> child = List.of();
    JsonNode fk = r.get("foreign_key");
    if (fk != null) {
      unknownKeys(fk, Set.of("parent", "child"), "node '" + path + "': foreign_key");
      parent = names(fk, "parent", path);
      child = names(fk, "child", path);
      if (parent.isEmpty() || parent.size() != child.size()) {
        throw DefinitionException.at(
            path, "foreign_key needs as many 'parent' as 'child' columns, at least one");
      }
    }
    List<String> through = names(r, "through_tables", path);
    if (through.size() > 1) {
      throw DefinitionException.at(path, "weir joins through one table at a time");
    }
    if (!through.isEmpty() && fk != null) {
      throw DefinitionException.at(
          path, "foreign_key with through_tables: the link table's keys come from the catalog");
    }
    return new NodeSpec.Relationship(type, variant, parent, child, through);
  }

  private static <E extends Enum<E>> E choice(JsonNode r, String key, Class<E> type, String path) {
    List<String> allowed = new ArrayList<>();
    for (E option : type.getEnumConstants()) {
      allowed.add(option.name().toLowerCase(Locale.ROOT));
    }
    if (!r.has(key)) {
      throw DefinitionException.at(
          path, "relationship." + key + " is required (one of " + String.join(", ", allowed) + ")");
    }
    String value = r.get(key).asText();
    try {
      return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw DefinitionException.at(
          path,
          "relationship." + key + " is '" + value + "', not one of " + String.join(", ", allowed));
    }
  }

  /** The object under {@code key} ({@code what} in a message), none when absent; not another. */
  private static JsonNode object(JsonNode n, String key, String what, String path) {
    JsonNode v = n.path(key);
    if (!v.isMissingNode() && !v.isObject()) {
      throw DefinitionException.at(path, what + " must be an object");
    }
    return v;
  }

  /** A node's columns: names, or PGSync's JSON paths of a json column ({@code doc->a}). */
  private static List<String> columns(JsonNode n, String path) {
    JsonNode list = n.get("columns");
    if (list == null || !list.isArray()) {
      return names(n, "columns", path);
    }
    List<String> columns = new ArrayList<>();
    for (JsonNode c : list) {
      if (!c.isTextual()) {
        throw DefinitionException.at(path, "'columns' must be a list of names");
      }
      if (JsonPath.isPath(c.asText())) {
        try {
          JsonPath.parse(c.asText());
        } catch (IllegalArgumentException e) {
          throw DefinitionException.at(path, "columns: " + e.getMessage());
        }
      } else {
        name(c.asText(), "node '" + path + "': columns");
      }
      if (columns.contains(c.asText())) {
        throw DefinitionException.at(path, "'columns' names '" + c.asText() + "' twice");
      }
      columns.add(c.asText());
    }
    return List.copyOf(columns);
  }

  /** {@code weir.where}: a row filter, its syntax checked here, its columns when planned. */
  private static RowFilter where(JsonNode text, String path) {
    if (!text.isTextual() || text.asText().isBlank()) {
      throw DefinitionException.at(
          path, "weir.where must be a filter, e.g. \"deleted_at IS NULL\"");
    }
    try {
      return RowFilterParser.parse(text.asText());
    } catch (RowFilter.FilterException e) {
      throw DefinitionException.at(
          path,
          "weir.where, at "
              + e.position()
              + ": "
              + e.getMessage()
              + " (in \""
              + text.asText()
              + "\")");
    }
  }

  /** Refuses a name that is not a plain SQL name; {@code where} says whose. */
  static void checkName(String name, String where) {
    name(name, where);
  }

  /** Refuses keys of {@code n} weir does not read. */
  static void checkKeys(JsonNode n, Set<String> known, String where) {
    unknownKeys(n, known, where);
  }

  private static List<String> names(JsonNode n, String key, String path) {
    JsonNode list = n.get(key);
    if (list == null) {
      return List.of();
    }
    if (!list.isArray()) {
      throw DefinitionException.at(path, "'" + key + "' must be a list of names, not " + list);
    }
    List<String> names = new ArrayList<>();
    for (JsonNode name : list) {
      if (!name.isTextual()) {
        throw DefinitionException.at(path, "'" + key + "' must be a list of names");
      }
      name(name.asText(), "node '" + path + "': " + key);
      if (names.contains(name.asText())) {
        throw DefinitionException.at(path, "'" + key + "' names '" + name.asText() + "' twice");
      }
      names.add(name.asText());
    }
    return List.copyOf(names);
  }

  private static void name(String name, String where) {
    if (!NAME.matcher(name).matches()) {
      throw new DefinitionException(where + " '" + name + "' is not a plain SQL name");
    }
  }

  /** A string, or null when the key is absent; a JSON null is refused, not taken for absent. */
  private static String text(JsonNode n, String key, String where) {
    JsonNode v = n.get(key);
    if (v == null) {
      return null;
    }
    if (!v.isTextual() || v.asText().isBlank()) {
      throw new DefinitionException(where + ": '" + key + "' must be a non-empty string, not " + v);
    }
    return v.asText();
  }

  /** A node's name (table, label, schema), or null when the key is absent. */
  private static String nameAt(JsonNode n, String key, String path) {
    JsonNode v = n.get(key);
    if (v != null && !v.isTextual()) {
      throw DefinitionException.at(path, "'" + key + "' must be a name (a string), not " + v);
    }
    return v == null ? null : v.asText();
  }

  private static String requiredText(JsonNode n, String key, String where) {
    String v = text(n, key, where);
    if (v == null) {
      throw new DefinitionException(where + ": '" + key + "' is required");
    }
    return v;
  }

  private static void unknownKeys(JsonNode n, Set<String> known, String where) {
    if (n.isMissingNode()) {
      return;
    }
    if (!n.isObject()) {
      throw new DefinitionException(where + " must be an object");
    }
    for (Iterator<Map.Entry<String, JsonNode>> fields = n.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = field.getKey();
      JsonNode v = field.getValue();
      boolean empty = v.isNull() || (v.isContainerNode() && v.isEmpty());
      if (known.contains(key) || (PGSYNC_ONLY.containsKey(key) && empty)) {
        continue;
      }
      String why = PGSYNC_ONLY.containsKey(key) ? ": " + PGSYNC_ONLY.get(key) : "";
      throw new DefinitionException(
          where
              + ": '"
              + key
              + "' is not something weir reads"
              + why
              + " (it reads "
              + new TreeSet<>(known)
              + ")");
    }
  }
}
