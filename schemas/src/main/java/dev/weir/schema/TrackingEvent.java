package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Map;

/** {@code tracking.events}: an analytics event before identity resolution. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TrackingEvent(
    @JsonProperty("event_id") String eventId,
    @JsonProperty("project_id") String projectId,
    @JsonProperty("distinct_id") String distinctId,
    @JsonProperty("name") String name,
    @JsonProperty("time") Instant time,
    @JsonProperty("properties") Map<String, Object> properties) {

  public EnrichedTrackingEvent withCanonicalId(String canonicalId) {
    return new EnrichedTrackingEvent(
        eventId, projectId, distinctId, name, time, properties, canonicalId);
  }
}
