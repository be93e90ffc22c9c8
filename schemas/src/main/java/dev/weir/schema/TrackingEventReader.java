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
    try (JsonParser p = Json.mapper().getFactory().createParser(bytes)) {
      return read(p, bytes);
    } catch (Exception e) {
      return null; // the long way says what is wrong, or reads what this does not
    }
  }

  private static TrackingEvent read(JsonParser p, byte[] bytes) throws Exception {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    String eventId = null;
    String projectId = null;
    String distinctId = null;
    String name = null;
    Instant time = null;
    RawJsonObject properties = null;
    int seen = 0;
    JsonToken token;
    while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      int bit;
      switch (field) {
        case "event_id" -> {
          bit = EVENT_ID;
          eventId = PlainJson.text(p, value, 128);
          if (eventId == null) {
            return null;
          }
        }
        case "project_id" -> {
          bit = PROJECT_ID;
          projectId = PlainJson.text(p, value, 128);
          if (projectId == null) {
            return null;
          }
        }
        case "distinct_id" -> {
          bit = DISTINCT_ID;
          distinctId = PlainJson.text(p, value, 256);
          if (distinctId == null) {
            return null;
          }
        }
        case "name" -> {
          bit = NAME;
          name = PlainJson.text(p, value, 256);
          if (name == null) {
            return null;
          }
        }
        case "time" -> {
          bit = TIME;
          String text = PlainJson.text(p, value, 64);
          time = text == null ? null : PlainJson.instant(text);
          if (time == null) {
            return null;
          }
        }
        case "properties" -> {
          bit = PROPERTIES;
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
          properties = RawJsonObject.of(Arrays.copyOfRange(bytes, start, end));
        }
        default -> {
          return null; // not in the schema (or a repeat the long way decides)
        }
      }
      if ((seen & bit) != 0) {
        return null;
      }
      seen |= bit;
    }
    if (token != JsonToken.END_OBJECT || (seen & REQUIRED) != REQUIRED || p.nextToken() != null) {
      return null;
    }
    return new TrackingEvent(eventId, projectId, distinctId, name, time, properties);
  }
}
