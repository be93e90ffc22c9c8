package dev.weir.connector.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.schema.Json;
import java.io.IOException;

/**
 * The cluster answered a request with an error: its HTTP status, and the error's type and reason as
 * the engine wrote them (e.g. {@code 400 illegal_argument_exception: unknown setting [index.foo]}).
 */
public class SearchException extends IOException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final String type;
  private final String reason;

  SearchException(String request, int status, String type, String reason) {
    super(
        request
            + ": "
            + status
            + (type == null ? "" : " " + type)
            + (reason == null ? "" : ": " + reason));
    this.status = status;
    this.type = type;
    this.reason = reason;
  }

  /** From an error answer's body: {@code {"error": {"type", "reason", "caused_by"}, "status"}}. */
  static SearchException of(String request, int status, String body) {
    JsonNode error;
    try {
      error = body == null || body.isBlank() ? null : Json.mapper().readTree(body).get("error");
    } catch (IOException notJson) {
      return new SearchException(request, status, null, body.strip());
    }
    if (error == null || error.isNull()) {
      return new SearchException(request, status, null, body == null ? null : body.strip());
    }
    if (error.isTextual()) {
      return new SearchException(request, status, null, error.asText());
    }
    String reason = error.path("reason").asText(null);
    JsonNode cause = error.path("caused_by");
    if (cause.has("reason") && !cause.path("reason").asText().equals(reason)) {
      // "Failed to parse value [three] for setting [...]", caused by "For input string: three".
      reason =
          reason
              + " (caused by "
              + cause.path("type").asText()
              + ": "
              + cause.path("reason").asText()
              + ")";
    }
    return new SearchException(request, status, error.path("type").asText(null), reason);
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** The engine's error type, e.g. {@code illegal_argument_exception}; null if it gave none. */
  public String type() {
    return type;
  }

  /** The engine's reason, as it wrote it. */
  public String reason() {
    return reason;
  }
}
