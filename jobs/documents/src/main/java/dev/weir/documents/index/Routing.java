package dev.weir.documents.index;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.schema.Json;

/**
 * A document's routing value from its routing field's JSON value: a string's text, a number or a
 * boolean as written; JSON null (or no value) routes the document by its id, as without routing.
 */
public final class Routing {

  private Routing() {}

  /** The routing of a field's JSON text, or null. */
  public static String of(String json) {
    if (json == null || json.equals("null")) {
      return null;
    }
    if (json.length() > 1 && json.charAt(0) == '"') {
      if (json.indexOf('\\') < 0) {
        return json.substring(1, json.length() - 1);
      }
      try {
        JsonNode text = Json.mapper().readTree(json);
        return text.asText();
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("not a JSON value: " + json, e);
      }
    }
    return json;
  }
}
