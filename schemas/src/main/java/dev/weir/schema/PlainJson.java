package dev.weir.schema;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.time.Instant;

/**
 * What the streaming readers of events ({@link TrackingEventReader}, {@link ActivityEventReader})
 * accept of a value: only forms the JSON Schema surely accepts and Jackson binds the same way; null
 * for anything else, which the long way then reads (for its reason).
 */
final class PlainJson {

  private PlainJson() {}

  /** One event's fields, as a streaming reader collects them. */
  interface Fields<T> {
    /**
     * Reads the value of {@code field} ({@code value} is its first token): the field's bit, or 0 if
     * the field is not in the schema or its value not in the plain form.
     */
    int read(String field, JsonToken value, JsonParser p) throws Exception;

    /** The event, once every field is read. */
    T event();
  }

  /**
   * One JSON object of known fields read in one pass: each field once, every {@code required} bit
   * present, nothing after the object. The event, or null where the long way must judge (and give
   * the reason): an unknown or repeated field, a value not in the plain form, anything unreadable.
   */
  static <T> T object(byte[] bytes, int required, Fields<T> fields) {
    try (JsonParser p = Json.mapper().getFactory().createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      int seen = 0;
      JsonToken token;
      while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
        int bit = fields.read(p.currentName(), p.nextToken(), p);
        if (bit == 0 || (seen & bit) != 0) {
          return null;
        }
        seen |= bit;
      }
      if (token != JsonToken.END_OBJECT || (seen & required) != required || p.nextToken() != null) {
        return null;
      }
      return fields.event();
    } catch (Exception e) {
      return null; // the long way says what is wrong, or reads what this does not
    }
  }

  /** A string of 1 to {@code max} UTF-16 units (so of code points too) without NUL, or null. */
  static String text(JsonParser p, JsonToken token, int max) throws Exception {
    if (token != JsonToken.VALUE_STRING) {
      return null;
    }
    String s = p.getText();
    return s.isEmpty() || s.length() > max || s.indexOf('\u0000') >= 0 ? null : s;
  }

  /** {@code \u0000} anywhere in the text (a false alarm on {@code \\u0000} only costs time). */
  static boolean escapedNul(byte[] b, int from, int to) {
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
