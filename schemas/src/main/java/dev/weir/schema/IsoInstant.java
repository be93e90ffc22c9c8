package dev.weir.schema;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * ISO-8601 times in the plain form the event producers and Debezium write, read without
 * DateTimeFormatter, whose parse was a seventh of search-index's CPU and most of the tracking
 * decoder's: the same Instant, or null where the formatter is needed.
 */
public final class IsoInstant {

  private IsoInstant() {}

  /**
   * {@code yyyy-MM-ddTHH:mm:ss[.f…]} with {@code Z} or {@code ±HH:MM}, read by hand; null for any
   * other form, or an impossible date, which the caller reads the long way (for its message).
   */
  public static Instant parse(String s) {
    int n = s.length();
    if (n < 20
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || s.charAt(10) != 'T'
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 7);
    int day = digits(s, 8, 10);
    int hour = digits(s, 11, 13);
    int minute = digits(s, 14, 16);
    int second = digits(s, 17, 19);
    int i = 19;
    int nanos = 0;
    if (s.charAt(i) == '.') {
      int start = ++i;
      // ASCII digits only: Character.isDigit also takes other scripts' digits, which the
      // formatter (and the JSON Schema date-time format) reject.
      while (i < n && i - start < 9 && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        nanos = nanos * 10 + (s.charAt(i++) - '0');
      }
      if (i == start) {
        return null;
      }
      for (int k = i - start; k < 9; k++) {
        nanos *= 10;
      }
    }
    int offsetSeconds;
    if (i == n - 1 && s.charAt(i) == 'Z') {
      offsetSeconds = 0;
    } else if (i == n - 6 && (s.charAt(i) == '+' || s.charAt(i) == '-') && s.charAt(i + 3) == ':') {
      int h = digits(s, i + 1, i + 3);
      int m = digits(s, i + 4, i + 6);
      if (h < 0 || m < 0 || h > 18 || m > 59) {
        return null;
      }
      offsetSeconds = (s.charAt(i) == '-' ? -1 : 1) * (h * 3600 + m * 60);
    } else {
      return null;
    }
    if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
      return null;
    }
    try {
      return LocalDateTime.of(year, month, day, hour, minute, second, nanos)
          .toInstant(ZoneOffset.ofTotalSeconds(offsetSeconds));
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** The decimal number of {@code s[from, to)}, or -1 if a character is not a digit. */
  private static int digits(String s, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
