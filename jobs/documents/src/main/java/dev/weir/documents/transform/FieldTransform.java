package dev.weir.documents.transform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What PGSync's transforms do to one field's value, in its order: the JSON path's value ({@code
 * doc->firstname}), then {@code replace} (substrings of a text or of each text of a list; or,
 * nested, inside a JSON value's objects), then a nested {@code rename} of keys inside a JSON
 * value's objects. Renaming the field itself and {@code concat} are the node's (see {@link
 * Concat}).
 *
 * @param path the JSON path the field's value is taken at, or null: the column's value
 * @param replacements search → replacement, applied in order, or null
 * @param replaceWithin a nested replace spec for a JSON value (field → replacements or nested
 *     spec), or null
 * @param renameWithin a nested rename spec for a JSON value (key → new key or nested spec), or null
 */
public record FieldTransform(
    JsonPath path,
    LinkedHashMap<String, String> replacements,
    JsonNode replaceWithin,
    JsonNode renameWithin)
    implements Serializable {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The field's value (JSON text) from its column's value (JSON text). */
  public String apply(String columnJson) {
    JsonNode value = read(columnJson);
    if (path != null) {
      value = path.apply(value);
      if (value == null) {
        value = NODES.nullNode();
      }
    }
    if (replacements != null) {
      value = replace(value, replacements);
    }
    if (replaceWithin != null) {
      value = replaceWithin(value, replaceWithin);
    }
    if (renameWithin != null) {
      value = renameWithin(value, renameWithin);
    }
    return value.toString();
  }

  /**
   * PGSync's replacement map on a value: each search string replaced in a text, or in each text of
   * a list; anything else as it is.
   */
  static JsonNode replace(JsonNode value, Map<String, String> replacements) {
    if (value.isTextual()) {
      String s = value.textValue();
      for (Map.Entry<String, String> r : replacements.entrySet()) {
        s = s.replace(r.getKey(), r.getValue());
      }
      return TextNode.valueOf(s);
    }
    if (value.isArray()) {
      ArrayNode out = NODES.arrayNode(value.size());
      value.forEach(e -> out.add(e.isTextual() ? replace(e, replacements) : e));
      return out;
    }
    return value;
  }

  /**
   * PGSync's nested replace inside a JSON value: for each key of an object the spec names, a
   * replacement map (an object of texts) replaces in its value, a nested spec goes into its objects
   * (or each object of its list).
   */
  static JsonNode replaceWithin(JsonNode value, JsonNode spec) {
    return within(
        value,
        spec,
        (out, key, rule, v) -> {
          if (rule != null && rule.isObject()) {
            v = isReplacementMap(rule) ? replace(v, replacementMap(rule)) : replaceWithin(v, rule);
          }
          out.set(key, v);
        });
  }

  /**
   * PGSync's nested rename inside a JSON value: each key of an object the spec maps to a text is
   * renamed; a nested spec goes into its value's objects (or each object of its list).
   */
  static JsonNode renameWithin(JsonNode value, JsonNode spec) {
    return within(
        value,
        spec,
        (out, key, rule, v) -> {
          if (rule != null && rule.isTextual()) {
            out.set(rule.textValue(), v);
          } else if (rule != null && rule.isObject()) {
            out.set(key, renameWithin(v, rule));
          } else {
            out.set(key, v);
          }
        });
  }

  /** What a nested spec does to one field of an object: puts its result into {@code out}. */
  private interface FieldRule {
    void apply(ObjectNode out, String key, JsonNode rule, JsonNode value);
  }

  /**
   * Applies {@code field} to each field of {@code value}'s objects (or each object of its list).
   */
  private static JsonNode within(JsonNode value, JsonNode spec, FieldRule field) {
    if (value.isArray()) {
      ArrayNode out = NODES.arrayNode(value.size());
      value.forEach(e -> out.add(within(e, spec, field)));
      return out;
    }
    if (!value.isObject()) {
      return value;
    }
    ObjectNode out = NODES.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      field.apply(out, e.getKey(), spec.get(e.getKey()), e.getValue());
    }
    return out;
  }

  /** PGSync's test: a spec whose values are all texts replaces; any other nests. */
  public static boolean isReplacementMap(JsonNode spec) {
    for (JsonNode v : spec) {
      if (!v.isTextual()) {
        return false;
      }
    }
    return true;
  }

  /** A replacement map's entries, in order. */
  public static LinkedHashMap<String, String> replacementMap(JsonNode spec) {
    LinkedHashMap<String, String> map = new LinkedHashMap<>();
    spec.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().textValue()));
    return map;
  }

  private static JsonNode read(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("a field's value is not JSON", e);
    }
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    if (path != null) {
      s.append(path.column()).append(" at its path");
    }
    if (replacements != null) {
      s.append(s.isEmpty() ? "" : ", ").append("replace ").append(replacements);
    }
    if (replaceWithin != null) {
      s.append(s.isEmpty() ? "" : ", ").append("replace within ").append(replaceWithin);
    }
    if (renameWithin != null) {
      s.append(s.isEmpty() ? "" : ", ").append("rename within ").append(renameWithin);
    }
    return s.toString();
  }
}
