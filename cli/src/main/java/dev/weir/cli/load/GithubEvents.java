package dev.weir.cli.load;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.Json;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Maps a GH Archive event onto {@code activity.events}: the repository owner is the workspace, the
 * repository the element, the event type (plus the payload's action) the action.
 */
public final class GithubEvents {

  private static final int MAX_DETAIL_CHARS = 200;

  private GithubEvents() {}

  public static ActivityEvent toActivityEvent(String line) throws IOException {
    JsonNode event = Json.mapper().readTree(line);
    String repo = required(event, "repo", "name");
    int slash = repo.indexOf('/');
    JsonNode payload = event.path("payload");
    return new ActivityEvent(
        required(event, "id"),
        slash > 0 ? repo.substring(0, slash) : repo,
        required(event, "actor", "login"),
        "repository",
        repo,
        action(required(event, "type"), payload.path("action").asText(null)),
        Instant.parse(required(event, "created_at")),
        details(payload));
  }

  /** {@code PullRequestEvent} + {@code opened} → {@code pull_request.opened}. */
  static String action(String type, String payloadAction) {
    String base =
        type.endsWith("Event") ? type.substring(0, type.length() - "Event".length()) : type;
    String snake = base.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    return payloadAction == null || payloadAction.isEmpty() ? snake : snake + "." + payloadAction;
  }

  private static Map<String, Object> details(JsonNode payload) {
    Map<String, Object> details = new LinkedHashMap<>();
    putText(details, "ref", payload.path("ref"));
    putText(details, "ref_type", payload.path("ref_type"));
    if (payload.path("size").isNumber()) {
      details.put("commits", payload.path("size").asInt());
    }
    if (payload.path("number").isNumber()) {
      details.put("number", payload.path("number").asLong());
    }
    putText(details, "title", payload.path("pull_request").path("title"));
    putText(details, "title", payload.path("issue").path("title"));
    return details.isEmpty() ? null : details;
  }

  private static void putText(Map<String, Object> details, String key, JsonNode node) {
    if (node.isTextual()) {
      String text = node.asText();
      details.put(
          key, text.length() > MAX_DETAIL_CHARS ? text.substring(0, MAX_DETAIL_CHARS) : text);
    }
  }

  private static String required(JsonNode node, String... path) throws IOException {
    JsonNode current = node;
    for (String p : path) {
      current = current.path(p);
    }
    if (!current.isValueNode() || current.asText().isEmpty()) {
      throw new IOException("missing " + String.join(".", path));
    }
    return current.asText();
  }
}
