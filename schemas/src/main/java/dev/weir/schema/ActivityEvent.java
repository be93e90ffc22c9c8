package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Map;

/** {@code activity.events}: one action by one actor on one element. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ActivityEvent(
    @JsonProperty("event_id") String eventId,
    @JsonProperty("workspace_id") String workspaceId,
    @JsonProperty("actor_id") String actorId,
    @JsonProperty("element_type") String elementType,
    @JsonProperty("element_id") String elementId,
    @JsonProperty("action") String action,
    @JsonProperty("occurred_at") Instant occurredAt,
    @JsonProperty("details") Map<String, Object> details) {}
