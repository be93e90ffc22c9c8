package dev.weir.search.join;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A row's values, the JSON object text the join passes from operator to operator, read field by
 * field as the text each value has there, without building a tree: a root row's large value (a
 * description of several kB) is cut out as it is, never parsed into a node and written out again.
 * Only the small values a key is made of are parsed ({@link #key}).
 */
final class RowValues {

  private final Map<String, String> fields;

  private RowValues(Map<String, String> fields) {
    this.fields = fields;
  }

  /** The fields of a JSON object text (as Jackson wrote it: {@link JsonNode#toString}). */
  static RowValues of(String objectJson) {
    Map<String, String> fields = new HashMap<>();
    try (JsonParser p = Json.mapper().getFactory().createParser(objectJson)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("not a JSON object: " + objectJson);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        int start = (int) p.currentTokenLocation().getCharOffset();
        if (value.isStructStart()) {
          p.skipChildren();
        } else {
          p.finishToken();
        }
        int end = (int) p.currentLocation().getCharOffset();
        fields.put(name, objectJson.substring(start, end));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("a row's values are not a JSON object", e);
    }
    return new RowValues(fields);
  }

  /** Whether the row has a value (JSON null included) for {@code column}. */
  boolean has(String column) {
    return fields.containsKey(column);
  }

  /** The value of {@code column} as JSON text; {@code null} (the JSON text) if the row has none. */
  String json(String column) {
    String value = fields.get(column);
    return value == null ? "null" : value;
  }

  /** The value of {@code column}, parsed; null if the row has none or a JSON null. */
  JsonNode value(String column) {
    String json = fields.get(column);
    if (json == null || "null".equals(json)) {
      return null;
    }
    try {
      return Json.mapper().readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The value of {@code columns} as a key ({@link Values#key}); null if any is null. */
  String key(List<String> columns) {
    List<JsonNode> parts = new ArrayList<>(columns.size());
    for (String column : columns) {
      String value = fields.get(column);
      if (value == null || "null".equals(value)) {
        return null;
      }
      try {
        parts.add(Json.mapper().readTree(value));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return Values.key(parts);
  }

  /** A JSON object of {@code columns} of this row (those it has), in that order. */
  String project(Iterable<String> columns) {
    StringBuilder object = new StringBuilder("{");
    for (String column : columns) {
      String value = fields.get(column);
      if (value != null) {
        field(object, column, value);
      }
    }
    return object.append('}').toString();
  }

  /** Appends {@code "name":json} to an object being written. */
  static void field(StringBuilder object, String name, String json) {
    if (object.length() > 1) {
      object.append(',');
    }
    object.append(TextNode.valueOf(name)).append(':').append(json);
  }

  /** How many fields the row has. */
  int size() {
    return fields.size();
  }

  /** The columns the row has a value for. */
  Set<String> columns() {
    return fields.keySet();
  }
}
