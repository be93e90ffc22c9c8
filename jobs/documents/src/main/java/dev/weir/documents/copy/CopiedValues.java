package dev.weir.documents.copy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlan.DocumentField;
import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.documents.definition.DocumentPlan.Node;
import dev.weir.documents.definition.ValueType;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A copy's values written back exactly as the join wrote them. The copy holds each value in its
 * column's type, and PostgreSQL prints it its own way: {@code to_jsonb} of a {@code numeric(10,2)}
 * is {@code 7.50} where the join wrote {@code 7.5}, a timestamptz is {@code +00:00} where the join
 * wrote {@code Z}, and a jsonb label's objects come back with their keys in jsonb's order (shorter
 * first) and spaces after the colons. Each value is read again through {@link Values#normalize}
 * (the join's own normalization) and each object is written in the plan's field order, as {@code
 * NodeAssembler} and {@code EdgeJoin} write them: a backfilled document is then the streamed one
 * byte for byte, and its fields hash to the copy's content hash.
 */
public final class CopiedValues {

  private CopiedValues() {}

  /**
   * A field of the root document, as the join writes it, from the copy's JSON text of it ({@code
   * to_jsonb} of its column; null for SQL NULL).
   */
  public static String field(DocumentPlan plan, DocumentField field, String copied) {
    if (copied == null) {
      return field.isLabel() && field.child().many() ? "[]" : "null";
    }
    if (!field.isLabel() && isText(field.pgType()) && isPlainString(copied)) {
      // A large text (a description) as it is, not parsed and written again: PostgreSQL and the
      // join (Jackson) escape a string alike but for the backslash-u escapes, which take the long
      // way.
      return copied;
    }
    JsonNode value;
    try {
      value = Json.mapper().readTree(copied);
    } catch (JsonProcessingException e) {
      return copied; // not JSON: left as it is (its hash will tell)
    }
    StringBuilder out = new StringBuilder(copied.length());
    if (field.isLabel()) {
      label(plan, field.child(), value, out);
    } else {
      leaf(field.name(), value, field.pgType(), out);
    }
    return out.toString();
  }

  private static boolean isText(String pgType) {
    ValueType type = ValueType.of(pgType);
    return (type == ValueType.TEXT || type == ValueType.KEYWORD) && !ValueType.isArray(pgType);
  }

  /** A JSON string with no backslash-u escape (where PostgreSQL writes lower-case hex). */
  private static boolean isPlainString(String json) {
    return json.length() >= 2
        && json.charAt(0) == '"'
        && json.charAt(json.length() - 1) == '"'
        && json.indexOf("\\u") < 0;
  }

  /** A child's label: a list of its rows' values (one_to_many), or one value or null. */
  private static void label(DocumentPlan plan, Node child, JsonNode value, StringBuilder out) {
    if (value == null || value.isNull()) {
      out.append(child.many() ? "[]" : "null");
    } else if (child.many() && value.isArray()) {
      out.append('[');
      for (int i = 0; i < value.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        item(plan, child, value.get(i), out);
      }
      out.append(']');
    } else {
      item(plan, child, value, out);
    }
  }

  /** One row's value, as {@code NodeAssembler.value} writes it. */
  private static void item(DocumentPlan plan, Node node, JsonNode value, StringBuilder out) {
    if (value == null || value.isNull()) {
      out.append("null");
    } else if (node.link()) {
      item(plan, plan.node(node.children().get(0)), value, out);
    } else if (node.pathStep()) {
      // The values up the chain, root first, then the row's own: a list of its one column.
      Field only = node.fields().get(0);
      out.append('[');
      for (int i = 0; i < value.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        leaf(only.name(), value.get(i), only.pgType(), out);
      }
      out.append(']');
    } else if (node.scalar()) {
      Field only = node.fields().get(0);
      leaf(only.name(), value, only.pgType(), out);
    } else {
      out.append('{');
      boolean first = true;
      for (Field f : node.fields()) {
        first = name(f.name(), first, out);
        leaf(f.name(), value.get(f.name()), f.pgType(), out);
      }
      for (int id : node.children()) {
        Node child = plan.node(id);
        first = name(child.label(), first, out);
        label(plan, child, value.get(child.label()), out);
      }
      out.append('}');
    }
  }

  private static boolean name(String name, boolean first, StringBuilder out) {
    if (!first) {
      out.append(',');
    }
    out.append(TextNode.valueOf(name)).append(':');
    return false;
  }

  /** A column's value, in {@link Values#normalize}'s form for its type. */
  private static void leaf(String column, JsonNode value, String pgType, StringBuilder out) {
    if (value == null || value.isNull()) {
      out.append("null");
      return;
    }
    if (ValueType.of(pgType) == ValueType.JSON && !ValueType.isArray(pgType)) {
      out.append(value); // read as the join reads it: Jackson's tree of the JSON text
      return;
    }
    try {
      out.append(Values.normalize(column, raw(value), pgType));
    } catch (IllegalArgumentException | ArithmeticException e) {
      out.append(value); // not of its type: left as it is (its hash will tell)
    }
  }

  /** The value as a Debezium event's JSON reads (what {@link Values#normalize} takes). */
  private static Object raw(JsonNode value) {
    if (value.isArray()) {
      List<Object> list = new ArrayList<>(value.size());
      for (Iterator<JsonNode> it = value.elements(); it.hasNext(); ) {
        JsonNode e = it.next();
        list.add(e.isNull() ? null : raw(e));
      }
      return list;
    }
    if (value.isNumber()) {
      return value.isIntegralNumber() ? (Object) value.bigIntegerValue() : value.decimalValue();
    }
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    if (value.isTextual()) {
      return value.textValue();
    }
    return value.toString(); // an object where a column's value was expected
  }
}
