package dev.weir.it.declared;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.ValueType;
import dev.weir.schema.Json;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The documents a definition declares, built by one SQL query over the source tables (generated
 * from the plan: {@code jsonb_build_object} per node, a correlated subquery per child label): what
 * search-index must converge to. Lists are ordered as weir orders them (by the key of the row that
 * links the child, integers numerically, text bytewise), and a link row without its child adds
 * nothing, as in an inner join. A node's row filter ({@code weir.where}) is its WHERE, as written
 * (the filter is SQL).
 */
final class SqlDocuments {

  private final DocumentPlan plan;
  private int aliases;

  private SqlDocuments(DocumentPlan plan) {
    this.plan = plan;
  }

  /** Every document, by id, in {@link #normalized} form. */
  static Map<String, JsonNode> read(Connection c, DocumentPlan plan) throws SQLException {
    String sql = new SqlDocuments(plan).query();
    Map<String, JsonNode> docs = new TreeMap<>();
    try (Statement s = c.createStatement()) {
      // weir's forms: intervals in ISO 8601, timestamps with time zone in UTC.
      s.execute("SET intervalstyle = 'iso_8601'");
      s.execute("SET TIME ZONE 'UTC'");
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        docs.put(rs.getString(1), normalized(parse(rs.getString(2))));
      }
    }
    return docs;
  }

  /** The query (for a failure's message). */
  String query() {
    DocumentPlan.Node root = plan.root();
    String t = alias();
    return "SELECT "
        + idText(root, t)
        + ", ("
        + value(root, t)
        + ")::text FROM "
        + table(root)
        + " "
        + t
        + (root.filter() == null ? "" : " WHERE " + root.filter());
  }

  private String value(DocumentPlan.Node node, String t) {
    if (node.link()) {
      DocumentPlan.Node child = plan.node(node.children().get(0));
      String c = alias();
      return "(SELECT "
          + value(child, c)
          + " FROM "
          + table(child)
          + " "
          + c
          + " WHERE "
          + join(child, t, c)
          + " ORDER BY "
          + order(child, c)
          + " LIMIT 1)";
    }
    if (node.pathStep()) {
      // The values up the chain, root first, then this row's.
      String own = "jsonb_build_array(" + field(t, node.fields().get(0).column()) + ")";
      if (node.children().isEmpty()) {
        return own;
      }
      String up = label(plan.node(node.children().get(0)), t);
      return "(CASE WHEN jsonb_typeof("
          + up
          + ") = 'array' THEN "
          + up
          + " ELSE '[]'::jsonb END || "
          + own
          + ")";
    }
    if (node.scalar()) {
      return field(t, node.fields().get(0).column());
    }
    StringBuilder object = new StringBuilder("jsonb_build_object(");
    String sep = "";
    for (DocumentPlan.Field f : node.fields()) {
      object.append(sep).append('\'').append(f.name()).append("', ").append(field(t, f.column()));
      sep = ", ";
    }
    for (int id : node.children()) {
      DocumentPlan.Node child = plan.node(id);
      object.append(sep).append('\'').append(child.label()).append("', ").append(label(child, t));
      sep = ", ";
    }
    return object.append(')').toString();
  }

  /** A child label of the row {@code parent}: one value (or null), or the list. */
  private String label(DocumentPlan.Node child, String parent) {
    String c = alias();
    String rows =
        "SELECT "
            + value(child, c)
            + " AS v, "
            + order(child, c)
            + " AS k FROM "
            + table(child)
            + " "
            + c
            + " WHERE "
            + join(child, parent, c)
            // Unqualified, the filter's columns are the child's: the innermost table that has them.
            + (child.filter() == null ? "" : " AND (" + child.filter() + ")");
    if (child.many()) {
      return "COALESCE((SELECT jsonb_agg(s.v ORDER BY s.k) FROM ("
          + rows
          + ") s WHERE s.v IS NOT NULL), '[]'::jsonb)";
    }
    return "COALESCE((SELECT s.v FROM ("
        + rows
        + ") s WHERE s.v IS NOT NULL ORDER BY s.k LIMIT 1), 'null'::jsonb)";
  }

  private String join(DocumentPlan.Node child, String parent, String c) {
    StringBuilder on = new StringBuilder();
    for (int i = 0; i < child.childColumns().size(); i++) {
      on.append(i == 0 ? "" : " AND ")
          .append(c)
          .append('.')
          .append(child.childColumns().get(i))
          .append(" = ")
          .append(parent)
          .append('.')
          .append(child.parentColumns().get(i));
    }
    return on.toString();
  }

  /** The order weir gives rows of a node: integer keys numerically, others bytewise as text. */
  private String order(DocumentPlan.Node node, String t) {
    List<String> key = node.keyColumns();
    if (key.size() == 1 && plan.source(node).type(key.get(0)) == ValueType.INTEGER) {
      return t + "." + key.get(0);
    }
    return "(" + idText(node, t) + ") COLLATE \"C\"";
  }

  /** A row's key as weir writes it: the value's text, or the JSON array of several. */
  private String idText(DocumentPlan.Node node, String t) {
    List<String> key = node.keyColumns();
    if (key.size() == 1) {
      return t + "." + key.get(0) + "::text";
    }
    return "'[' || "
        + key.stream()
            .map(k -> "to_jsonb(" + t + "." + k + ")::text")
            .collect(Collectors.joining(" || ',' || "))
        + " || ']'";
  }

  private String field(String t, String column) {
    return "COALESCE(to_jsonb(" + t + "." + column + "), 'null'::jsonb)";
  }

  private String table(DocumentPlan.Node node) {
    DocumentPlan.Source s = plan.source(node);
    return s.schema() + "." + s.table();
  }

  private String alias() {
    return "t" + aliases++;
  }

  private static JsonNode parse(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A timestamp without a zone (or in UTC, {@code +00:00} or {@code Z}), of any year: {@code
   * 2020-01-01T10:00:00} and weir's {@code 2020-01-01T10:00} are one value.
   */
  private static final Pattern LOCAL_TIMESTAMP =
      Pattern.compile(
          "(\\d{4,}-\\d\\d-\\d\\dT\\d\\d:\\d\\d)(?::(\\d\\d)(?:\\.(\\d+))?)?(Z|\\+00:00)?( BC)?");

  private static String localTimestamp(String text) {
    Matcher m = LOCAL_TIMESTAMP.matcher(text);
    m.matches();
    String seconds = m.group(2) == null ? "00" : m.group(2);
    String fraction = m.group(3) == null ? "" : m.group(3).replaceAll("0+$", "");
    return m.group(1)
        + ":"
        + seconds
        + (fraction.isEmpty() ? "" : "." + fraction)
        + (m.group(4) == null ? "" : "Z")
        + (m.group(5) == null ? "" : " BC");
  }

  /**
   * A document with its numbers as exact decimals without trailing zeros and its timestamps in UTC
   * ({@code Instant} form), so that documents compare equal when their values are.
   */
  static JsonNode normalized(JsonNode node) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (node.isNumber()) {
      return nodes.numberNode(
          new BigDecimal(node.decimalValue().stripTrailingZeros().toPlainString()));
    }
    if (node.isTextual() && LOCAL_TIMESTAMP.matcher(node.asText()).matches()) {
      return nodes.textNode(localTimestamp(node.asText()));
    }
    if (node.isTextual() && node.asText().length() > 19 && node.asText().charAt(10) == 'T') {
      try {
        return nodes.textNode(OffsetDateTime.parse(node.asText()).toInstant().toString());
      } catch (DateTimeParseException notATimestamp) {
        return node;
      }
    }
    if (node.isArray()) {
      ArrayNode array = nodes.arrayNode();
      node.forEach(e -> array.add(normalized(e)));
      return array;
    }
    if (node.isObject()) {
      ObjectNode object = nodes.objectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        object.set(e.getKey(), normalized(e.getValue()));
      }
      return object;
    }
    return node;
  }
}
