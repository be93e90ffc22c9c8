package dev.weir.search.join;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.transform.FieldValues;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The documents a definition gives over tables held in memory, computed the plain way (what a SQL
 * join of the tables gives, each node's {@code weir.where} in its WHERE, PGSync's transforms
 * applied to each row's fields): the answer the streaming join must converge to.
 */
final class ReferenceJoin {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final DocumentPlan plan;

  /** source → key → values. */
  private final Map<String, Map<String, ObjectNode>> tables = new LinkedHashMap<>();

  ReferenceJoin(DocumentPlan plan) {
    this.plan = plan;
  }

  /** Applies a change as the database would; the same row for the streaming join. */
  SourceRow apply(String source, ObjectNode values, boolean delete, long lsn) {
    Map<String, ObjectNode> table = tables.computeIfAbsent(source, s -> new LinkedHashMap<>());
    String key = key(source, values);
    if (delete) {
      table.remove(key);
    } else {
      table.put(key, values.deepCopy());
    }
    SourceRow row = new SourceRow();
    row.source = source;
    row.deleted = delete;
    row.lsn = lsn;
    row.values = delete ? keyOnly(source, values).toString() : values.toString();
    return row;
  }

  /** Truncates a table as the database would; the truncate's event for the streaming join. */
  SourceRow truncate(String source, long lsn) {
    tables.remove(source);
    SourceRow row = new SourceRow();
    row.source = source;
    row.truncated = true;
    row.lsn = lsn;
    return row;
  }

  Map<String, ObjectNode> rows(String source) {
    return tables.getOrDefault(source, Map.of());
  }

  /** Every document, by id. */
  Map<String, JsonNode> documents() {
    Map<String, JsonNode> docs = new TreeMap<>();
    DocumentPlan.Node root = plan.root();
    for (var e : rows(root.source()).entrySet()) {
      if (kept(root, e.getValue())) {
        docs.put(e.getKey(), object(root, e.getValue()));
      }
    }
    return docs;
  }

  /** A document as the join emitted it, as one JSON object (field → value). */
  static JsonNode asObject(DocumentPlan plan, DocumentChange d) throws Exception {
    ObjectNode o = NODES.objectNode();
    List<DocumentPlan.DocumentField> fields = plan.documentFields();
    for (int i = 0; i < fields.size(); i++) {
      o.set(fields.get(i).name(), Json.mapper().readTree(d.values[i]));
    }
    return o;
  }

  private JsonNode object(DocumentPlan.Node node, ObjectNode row) {
    ObjectNode o = NODES.objectNode();
    String[] fields = FieldValues.of(node, c -> column(row, c));
    for (int i = 0; i < fields.length; i++) {
      o.set(node.fields().get(i).name(), parse(fields[i]));
    }
    for (int child : node.children()) {
      DocumentPlan.Node c = plan.node(child);
      o.set(c.label(), label(c, row));
    }
    return o;
  }

  /** The value of a child label of a parent row. */
  private JsonNode label(DocumentPlan.Node child, ObjectNode parentRow) {
    String joinValue = RowValues.of(parentRow.toString()).key(child.parentColumns());
    List<Map.Entry<String, JsonNode>> values = new ArrayList<>();
    if (joinValue != null) {
      for (var e : rows(child.source()).entrySet()) {
        if (joinValue.equals(RowValues.of(e.getValue().toString()).key(child.childColumns()))
            && kept(child, e.getValue())) {
          JsonNode v = value(child, e.getValue());
          if (v != null) {
            values.add(Map.entry(keyOf(child, e.getValue()), v));
          }
        }
      }
    }
    Collections.sort(values, Map.Entry.comparingByKey(EdgeJoin.KEY_ORDER));
    if (!child.many()) {
      return values.isEmpty() ? NODES.nullNode() : values.get(0).getValue();
    }
    ArrayNode list = NODES.arrayNode();
    values.forEach(e -> list.add(e.getValue()));
    return list;
  }

  /** A child row's value; null when a link row has no child. */
  private JsonNode value(DocumentPlan.Node node, ObjectNode row) {
    if (node.link()) {
      JsonNode child = label(plan.node(node.children().get(0)), row);
      return child.isNull() ? null : child;
    }
    if (node.pathStep()) {
      ArrayNode path = NODES.arrayNode();
      if (!node.children().isEmpty()) {
        JsonNode up = label(plan.node(node.children().get(0)), row);
        if (up.isArray()) {
          path.addAll((ArrayNode) up);
        }
      }
      path.add(parse(FieldValues.of(node.fields().get(0), c -> column(row, c))));
      return path;
    }
    if (node.scalar()) {
      return parse(FieldValues.of(node.fields().get(0), c -> column(row, c)));
    }
    return object(node, row);
  }

  /** Whether the node takes the row: its filter holds (SQL's WHERE: true, not null). */
  private static boolean kept(DocumentPlan.Node node, ObjectNode row) {
    return node.filter() == null
        || node.filter().matches(c -> row.has(c) && !row.get(c).isNull() ? row.get(c) : null);
  }

  private static String column(ObjectNode row, String column) {
    return row.has(column) ? row.get(column).toString() : "null";
  }

  private static JsonNode parse(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private String key(String source, ObjectNode values) {
    return keyOf(plan.readersOf(source).get(0), values);
  }

  private static String keyOf(DocumentPlan.Node node, JsonNode values) {
    List<JsonNode> parts = new ArrayList<>();
    node.keyColumns().forEach(c -> parts.add(values.get(c)));
    return Values.key(parts);
  }

  private ObjectNode keyOnly(String source, ObjectNode values) {
    ObjectNode key = NODES.objectNode();
    plan.readersOf(source).get(0).keyColumns().forEach(c -> key.set(c, values.get(c)));
    return key;
  }
}
