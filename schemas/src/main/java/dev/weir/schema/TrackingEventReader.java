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
          eventId = text(p, value, 128);
          if (eventId == null) {
            return null;
          }
        }
        case "project_id" -> {
          bit = PROJECT_ID;
          projectId = text(p, value, 128);
          if (projectId == null) {
            return null;
          }
        }
        case "distinct_id" -> {
          bit = DISTINCT_ID;
          distinctId = text(p, value, 256);
          if (distinctId == null) {
            return null;
          }
        }
        case "name" -> {
          bit = NAME;
          name = text(p, value, 256);
          if (name == null) {
            return null;
          }
        }
        case "time" -> {
          bit = TIME;
          String text = text(p, value, 64);
          time = text == null ? null : instant(text);
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
          if (start < 0 || end <= start || end > bytes.length || escapedNul(bytes, start, end)) {
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

  /** A string of 1 to {@code max} UTF-16 units (so of code points too) without NUL, or null. */
  private static String text(JsonParser p, JsonToken token, int max) throws Exception {
    if (token != JsonToken.VALUE_STRING) {
      return null;
    }
    String s = p.getText();
    return s.isEmpty() || s.length() > max || s.indexOf('\u0000') >= 0 ? null : s;
  }

  /** {@code \u0000} anywhere in the text (a false alarm on {@code \\u0000} only costs time). */
  private static boolean escapedNul(byte[] b, int from, int to) {
    for (int i = from; i + 5 < to; i++) {
      if (b[i] == '\\'
          && b[i + 1] == 'u'
          && b[i + 2] == '0'
          && b[i + 3] == '0'
          && b[i + 4] == '0'
          && b[i + 5] == '0') {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} with a year from 1000 to 9999, as {@link Instant#parse}
   * reads it (Jackson's reading of such text); null for any other form or an impossible date.
   */
  static Instant instant(String s) {
    int n = s.length();
    if (n < 20 || n > 30 || s.charAt(0) == '0' || s.charAt(n - 1) != 'Z') {
      return null; // another form, or a year before 1000: the long way
    }
    return IsoInstant.parse(s);
  }
}
