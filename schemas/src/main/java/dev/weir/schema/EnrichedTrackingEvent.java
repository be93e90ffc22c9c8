package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Map;

/** {@code tracking.enriched}: a tracking event with its canonical id (also the Kafka key). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EnrichedTrackingEvent(
    @JsonProperty("event_id") String eventId,
    @JsonProperty("project_id") String projectId,
    @JsonProperty("distinct_id") String distinctId,
    @JsonProperty("name") String name,
    @JsonProperty("time") Instant time,
    @JsonProperty("properties") Map<String, Object> properties,
    @JsonProperty("canonical_id") String canonicalId) {}
