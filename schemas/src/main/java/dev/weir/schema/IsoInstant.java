package dev.weir.schema;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
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
   * Appends {@code t} as {@link Instant#toString} writes it (ISO-8601 in UTC, the fraction in
   * groups of three digits), without its formatter: the identity job writes one per event and the
   * feed store one per detail of each entry it writes, where {@code Instant.toString}'s formatter
   * is a visible share of the store's thread. Years outside 1000..9999 go through {@code toString}.
   */
  public static void append(StringBuilder out, Instant t) {
    long seconds = t.getEpochSecond();
    long days = Math.floorDiv(seconds, 86_400);
    if (days < -354_285 || days > 2_932_896) { // outside years 1000 .. 9999
      out.append(t);
      return;
    }
    int secondOfDay = (int) Math.floorMod(seconds, 86_400);
    LocalDate date = LocalDate.ofEpochDay(days);
    appendDigits(out, date.getYear(), 4).append('-');
    appendDigits(out, date.getMonthValue(), 2).append('-');
    appendDigits(out, date.getDayOfMonth(), 2).append('T');
    appendDigits(out, secondOfDay / 3600, 2).append(':');
    appendDigits(out, secondOfDay / 60 % 60, 2).append(':');
    appendDigits(out, secondOfDay % 60, 2);
    int nanos = t.getNano();
    if (nanos > 0) {
      out.append('.');
      if (nanos % 1_000_000 == 0) {
        appendDigits(out, nanos / 1_000_000, 3);
      } else if (nanos % 1_000 == 0) {
        appendDigits(out, nanos / 1_000, 6);
      } else {
        appendDigits(out, nanos, 9);
      }
    }
    out.append('Z');
  }

  /** {@code value}'s last {@code width} decimal digits, zero-padded. */
  private static StringBuilder appendDigits(StringBuilder out, int value, int width) {
    int power = 1;
    for (int i = 1; i < width; i++) {
      power *= 10;
    }
    for (; power > 0; power /= 10) {
      out.append((char) ('0' + value / power % 10));
    }
    return out;
  }

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
