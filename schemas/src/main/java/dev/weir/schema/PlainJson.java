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
