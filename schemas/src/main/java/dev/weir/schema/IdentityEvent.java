package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Instant;
import java.util.Locale;

/**
 * {@code identity.events}: identify (distinct id → user id), alias (alias → an existing distinct
 * id) or merge (distinct id → another distinct id's canonical id).
 */
public record IdentityEvent(
    @JsonProperty("event_id") String eventId,
    @JsonProperty("type") Type type,
    @JsonProperty("project_id") String projectId,
    @JsonProperty("distinct_id") String distinctId,
    @JsonProperty("target_id") String targetId,
    @JsonProperty("time") Instant time) {

  public enum Type {
    IDENTIFY,
    ALIAS,
    MERGE;

    @JsonValue
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
