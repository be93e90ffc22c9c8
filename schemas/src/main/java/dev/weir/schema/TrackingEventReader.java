package dev.weir.schema;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.time.Instant;
import java.util.Arrays;

/**
 * {@code tracking.events} read in one streaming pass, straight into a {@link TrackingEvent} whose
 * {@code properties} stay the JSON bytes they arrived as ({@link RawJsonObject}). It accepts only
 * what the schema surely accepts (the known fields once each, strings within their lengths and
 * without NUL, a {@code time} of the plain form {@code 2026-11-23T05:00:00(.123)Z}, an object for
 * {@code properties}) and binds it as Jackson would; anything else returns null, and {@link
 * EventCodec} reads the record the long way (tree, NUL check, JSON Schema, binding), which gives
 * the reason. So the fast path changes no verdict and no reason, only the cost of valid events.
 */
final class TrackingEventReader {

  private static final int EVENT_ID = 1;
  private static final int PROJECT_ID = 2;
  private static final int DISTINCT_ID = 4;
  private static final int NAME = 8;
  private static final int TIME = 16;
  private static final int PROPERTIES = 32;
  private static final int REQUIRED = EVENT_ID | PROJECT_ID | DISTINCT_ID | NAME | TIME;

  private TrackingEventReader() {}

  /** The event, or null if it is not the plain valid form (the caller then reads it fully). */
  static TrackingEvent read(byte[] bytes) {
    return PlainJson.object(bytes, REQUIRED, new Fields(bytes));
  }

  private static final class Fields implements PlainJson.Fields<TrackingEvent> {
    private final byte[] bytes;
    private String eventId;
    private String projectId;
    private String distinctId;
    private String name;
    private Instant time;
    private RawJsonObject properties;

    Fields(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public int read(String field, JsonToken value, JsonParser p) throws Exception {
      switch (field) {
        case "event_id" -> {
          eventId = PlainJson.text(p, value, 128);
          return eventId == null ? 0 : EVENT_ID;
        }
        case "project_id" -> {
          projectId = PlainJson.text(p, value, 128);
          return projectId == null ? 0 : PROJECT_ID;
        }
        case "distinct_id" -> {
          distinctId = PlainJson.text(p, value, 256);
          return distinctId == null ? 0 : DISTINCT_ID;
        }
        case "name" -> {
          name = PlainJson.text(p, value, 256);
          return name == null ? 0 : NAME;
        }
        case "time" -> {
          String text = PlainJson.text(p, value, 64);
          time = text == null ? null : PlainJson.instant(text);
          return time == null ? 0 : TIME;
        }
        case "properties" -> {
          properties = properties(p, value);
          return properties == null ? 0 : PROPERTIES;
        }
        default -> {
          return 0; // not in the schema
        }
      }
    }

    /** The object's bytes as they arrived, or null if not an object or holding an escaped NUL. */
    private RawJsonObject properties(JsonParser p, JsonToken value) throws Exception {
      if (value != JsonToken.START_OBJECT) {
        return null;
      }
      int start = (int) p.currentTokenLocation().getByteOffset();
      p.skipChildren(); // nesting depth is checked while skipping
      int end = (int) p.currentLocation().getByteOffset();
      if (start < 0
          || end <= start
          || end > bytes.length
          || PlainJson.escapedNul(bytes, start, end)) {
        return null;
      }
      return RawJsonObject.of(Arrays.copyOfRange(bytes, start, end));
    }

    @Override
    public TrackingEvent event() {
      return new TrackingEvent(eventId, projectId, distinctId, name, time, properties);
    }
  }
}
