package dev.weir.documents.definition;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.schema.Json;
import java.io.Serializable;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * What a definition says of its index besides the fields, in PGSync's keys: {@code setting} (index
 * settings: analysis, shards, replicas, refresh), {@code mapping} and {@code mappings} (applied
 * over the mapping weir derives), {@code routing} (the document field whose value routes a document
 * to its shard) and {@code pipeline} (the ingest pipeline documents go through).
 *
 * @param settings index settings, nested, relative to {@code index.} ({@code {"number_of_shards":
 *     3, "analysis": {...}}}); empty for none
 * @param mappings a mappings object ({@code properties}, {@code dynamic_templates}, ...) merged
 *     over the derived one; empty for none
 * @param routing a field of the root document, or null
 * @param pipeline an ingest pipeline's id, or null
 * @param mappedFields the fields the document's {@code mapping} names (each must be one of the
 *     document's; {@code mappings}, a whole mappings object, may name others, as PGSync's do)
 */
public record IndexDefinition(
    ObjectNode settings,
    ObjectNode mappings,
    String routing,
    String pipeline,
    Set<String> mappedFields)
    implements Serializable {

  /** A definition that says nothing of its index. */
  public static IndexDefinition none() {
    return new IndexDefinition(
        Json.mapper().createObjectNode(), Json.mapper().createObjectNode(), null, null, Set.of());
  }

  /** These, with {@code settings} merged over the definition's (e.g. shards from an option). */
  public IndexDefinition withSettings(ObjectNode more) {
    ObjectNode merged = settings.deepCopy();
    merge(merged, normalizedSettings(more));
    return new IndexDefinition(merged, mappings, routing, pipeline, mappedFields);
  }

  /**
   * Index settings in one form, nested and relative to {@code index.}, whichever form they were
   * given in: {@code {"index": {"refresh_interval": "5s"}}}, {@code {"index.refresh_interval":
   * "5s"}} and {@code {"refresh_interval": "5s"}} are the same setting (the engines read them so).
   */
  public static ObjectNode normalizedSettings(JsonNode given) {
    ObjectNode normal = Json.mapper().createObjectNode();
    for (Iterator<Map.Entry<String, JsonNode>> f = given.fields(); f.hasNext(); ) {
      Map.Entry<String, JsonNode> e = f.next();
      if (e.getKey().equals("index") && e.getValue().isObject()) {
        merge(normal, normalizedSettings(e.getValue()));
      } else {
        spread(normal, e.getKey().replaceFirst("^index\\.", ""), e.getValue());
      }
    }
    return normal;
  }

  /** Sets a dotted key's value as nested objects ({@code a.b: 1} is {@code a: {b: 1}}). */
  private static void spread(ObjectNode into, String key, JsonNode value) {
    ObjectNode at = into;
    String[] path = key.split("\\.");
    for (int i = 0; i < path.length - 1; i++) {
      at = at.get(path[i]) instanceof ObjectNode o ? o : at.putObject(path[i]);
    }
    String last = path[path.length - 1];
    if (value.isObject()) {
      ObjectNode inner = at.get(last) instanceof ObjectNode o ? o : at.putObject(last);
      value.fields().forEachRemaining(e -> spread(inner, e.getKey(), e.getValue()));
    } else {
      at.set(last, value.deepCopy());
    }
  }

  /**
   * Merges {@code over} into {@code into}: objects key by key, anything else (a value, a list)
   * replaced.
   */
  public static void merge(ObjectNode into, JsonNode over) {
    for (Iterator<Map.Entry<String, JsonNode>> f = over.fields(); f.hasNext(); ) {
      Map.Entry<String, JsonNode> e = f.next();
      if (e.getValue().isObject() && into.get(e.getKey()) instanceof ObjectNode inner) {
        merge(inner, e.getValue());
      } else {
        into.set(e.getKey(), e.getValue().deepCopy());
      }
    }
  }
}
