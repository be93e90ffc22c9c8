package dev.weir.documents.value;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.weir.documents.definition.ValueType;
import dev.weir.schema.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.util.List;
import java.util.Map;

/**
 * One form per value, whichever Debezium writer sent it (weir's capture, Debezium Server, Kafka
 * Connect: numbers as numbers or strings, jsonb as text or as an object, timestamps as ISO text or
 * epoch micro/milliseconds, dates as epoch days). Keys compare equal on both sides of a join only
 * if both are in one form, and a document's hash must depend on values, not encodings. A value that
 * cannot be read as its column's type is refused with the reason, before it reaches state.
 */
public final class Values {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /**
   * Elasticsearch's default {@code depth_limit} of a flattened field, the type a json or jsonb
   * column is indexed as: a deeper value would be refused by the index after reaching the copy, so
   * it is refused when decoded.
   */
  static final int FLATTENED_DEPTH_LIMIT = 20;

  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private Values() {}

  /** {@code raw} (as Jackson read the event) in weir's form for a column of type {@code pgType}. */
  public static JsonNode normalize(String column, Object raw, String pgType) {
    if (raw == null) {
      return NODES.nullNode();
    }
    if (ValueType.isArray(pgType)) {
      if (!(raw instanceof List<?> list)) {
        throw new IllegalArgumentException("'" + column + "' is not an array: " + brief(raw));
      }
      String element = pgType.trim().substring(0, pgType.trim().length() - 2);
      ArrayNode array = NODES.arrayNode(list.size());
      for (Object v : list) {
        // A multidimensional array's type names one dimension (int[][] is integer[]).
        array.add(normalize(column, v, v instanceof List<?> ? pgType : element));
      }
      return array;
    }
    ValueType type = ValueType.of(pgType);
    JsonNode value;
    try {
      value =
          switch (type) {
            case INTEGER -> NODES.numberNode(integer(raw));
            case DECIMAL -> decimal(raw);
            case FLOAT -> floating(raw);
            case BOOLEAN -> NODES.booleanNode(bool(raw));
            case TEXT, KEYWORD -> NODES.textNode(raw.toString());
            case JSON -> json(raw);
            case TIMESTAMPTZ -> NODES.textNode(PgText.timestamptz(raw));
            case TIMESTAMP -> NODES.textNode(PgText.timestamp(raw, pgType));
            case DATE -> NODES.textNode(PgText.date(raw));
            case TIME -> NODES.textNode(PgText.time(raw, pgType));
            case TIMETZ -> NODES.textNode(PgText.timetz(raw));
            case INTERVAL -> NODES.textNode(PgText.interval(raw));
            case BYTEA -> NODES.textNode(PgText.bytea(raw));
          };
    } catch (IllegalArgumentException | ArithmeticException | DateTimeException e) {
      throw new IllegalArgumentException(
          "'" + column + "' is not " + article(type) + ": " + brief(raw), e);
    }
    if (hasNul(value)) {
      // PostgreSQL's text and jsonb take no U+0000: the copy's write would fail on every retry.
      throw new IllegalArgumentException(
          "'" + column + "' contains U+0000, which PostgreSQL cannot store");
    }
    return value;
  }

  /**
   * Refuses a JSON value a flattened field does not take: anything but null, an object, or a list
   * of those (Elasticsearch refuses a number, a text or a list of them there).
   */
  public static void checkFlattened(String column, JsonNode value) {
    if (objectDepth(value) > FLATTENED_DEPTH_LIMIT) {
      throw new IllegalArgumentException(
          "'"
              + column
              + "' nests objects "
              + objectDepth(value)
              + " deep; its index field (flattened) takes at most "
              + FLATTENED_DEPTH_LIMIT);
    }
    if (!takenByFlattened(value)) {
      throw new IllegalArgumentException(
          "'"
              + column
              + "' is indexed as a flattened field, which takes an object or a list of objects,"
              + " not "
              + brief(value));
    }
  }

  private static boolean takenByFlattened(JsonNode value) {
    if (value.isArray()) {
      for (JsonNode element : value) {
        if (!takenByFlattened(element)) {
          return false;
        }
      }
      return true;
    }
    return value.isNull() || value.isObject();
  }

  /** How many objects deep a JSON value nests (an array adds none). */
  private static int objectDepth(JsonNode node) {
    int deepest = 0;
    for (JsonNode child : node) {
      deepest = Math.max(deepest, objectDepth(child));
    }
    return node.isObject() ? deepest + 1 : deepest;
  }

  /** Whether a text value, or any string or field name of a JSON value, holds a U+0000. */
  private static boolean hasNul(JsonNode node) {
    if (node.isTextual()) {
      return node.textValue().indexOf('\u0000') >= 0;
    }
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (field.getKey().indexOf('\u0000') >= 0 || hasNul(field.getValue())) {
          return true;
        }
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        if (hasNul(element)) {
          return true;
        }
      }
    }
    return false;
  }

  private static long integer(Object raw) {
    BigDecimal d =
        raw instanceof Number n
            ? new BigDecimal(n.toString())
            : new BigDecimal(raw.toString().trim());
    BigInteger i = d.toBigIntegerExact(); // 1.5 throws
    if (i.compareTo(LONG_MIN) < 0 || i.compareTo(LONG_MAX) > 0) {
      throw new IllegalArgumentException("out of the 64-bit range");
    }
    return i.longValue();
  }

  /**
   * Exact, without trailing zeros; NaN and ±Infinity (numeric has them) as PostgreSQL's text, from
   * it or from the names Debezium's {@code decimal.handling.mode=string} gives them.
   */
  private static JsonNode decimal(Object raw) {
    if (raw instanceof String s) {
      String special =
          switch (s.trim()) {
            case "NaN", "NAN" -> "NaN";
            case "Infinity", "POSITIVE_INFINITY" -> "Infinity";
            case "-Infinity", "NEGATIVE_INFINITY" -> "-Infinity";
            default -> null;
          };
      if (special != null) {
        return NODES.textNode(special);
      }
    }
    BigDecimal d = raw instanceof BigDecimal b ? b : new BigDecimal(raw.toString().trim());
    return NODES.numberNode(new BigDecimal(d.stripTrailingZeros().toPlainString()));
  }

  /**
   * real, double precision: a number; NaN and ±Infinity as PostgreSQL's text ({@code to_jsonb}).
   */
  private static JsonNode floating(Object raw) {
    double d;
    if (raw instanceof Number n) {
      d = n.doubleValue();
    } else if (PgText.isNonFinite(raw.toString().trim())) {
      return NODES.textNode(raw.toString().trim());
    } else {
      d = Double.parseDouble(raw.toString().trim());
    }
    if (Double.isNaN(d)) {
      return NODES.textNode("NaN");
    }
    if (Double.isInfinite(d)) {
      return NODES.textNode(d > 0 ? "Infinity" : "-Infinity");
    }
    return NODES.numberNode(d);
  }

  private static boolean bool(Object raw) {
    if (raw instanceof Boolean b) {
      return b;
    }
    return switch (raw.toString()) {
      case "true", "t" -> true;
      case "false", "f" -> false;
      default -> throw new IllegalArgumentException("not a boolean");
    };
  }

  private static JsonNode json(Object raw) {
    if (raw instanceof String s) {
      try {
        return Json.mapper().readTree(s);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
      }
    }
    if (raw instanceof Map<?, ?>
        || raw instanceof List<?>
        || raw instanceof Number
        || raw instanceof Boolean) {
      return Json.mapper().valueToTree(raw);
    }
    throw new IllegalArgumentException("not JSON");
  }

  /**
   * The text of a key or join value: a one-column key is its value's text (an integer as its
   * digits), several columns the JSON array of their values; null if any value is null (SQL's
   * equality never matches a null).
   */
  public static String key(List<JsonNode> values) {
    for (JsonNode v : values) {
      if (v == null || v.isNull()) {
        return null;
      }
    }
    if (values.size() == 1) {
      JsonNode v = values.get(0);
      return v.isValueNode() ? v.asText() : v.toString();
    }
    ArrayNode array = NODES.arrayNode(values.size());
    values.forEach(array::add);
    return array.toString();
  }

  private static String article(ValueType type) {
    return switch (type) {
      case INTEGER -> "an integer";
      case DECIMAL -> "a decimal number";
      case FLOAT -> "a number";
      case BOOLEAN -> "a boolean";
      case JSON -> "JSON";
      case TIMESTAMPTZ, TIMESTAMP -> "a timestamp";
      case DATE -> "a date";
      case TIME, TIMETZ -> "a time of day";
      case INTERVAL -> "an interval";
      case BYTEA -> "bytes (base64 or \\x hex)";
      default -> "text";
    };
  }

  private static String brief(Object raw) {
    String s = String.valueOf(raw);
    return s.length() > 80 ? s.substring(0, 80) + "…" : s;
  }
}
