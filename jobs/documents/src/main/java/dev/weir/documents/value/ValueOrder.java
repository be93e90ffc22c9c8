package dev.weir.documents.value;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.definition.ValueType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How PostgreSQL orders two values of one type, on weir's form of them ({@link Values#normalize}):
 * numbers by value with NaN above Infinity, dates and times by the instant (BC and infinity
 * included), intervals by their span (a month as 30 days), text by code point (as {@code COLLATE
 * "C"}).
 */
public final class ValueOrder {

  private ValueOrder() {}

  /** Whether values of the type have an order (json, arrays: only null or not). */
  public static boolean isOrdered(ValueType type) {
    return type != ValueType.JSON;
  }

  /** The order of two non-null values of one type. */
  public static int compare(ValueType type, JsonNode a, JsonNode b) {
    return switch (type) {
      case INTEGER, DECIMAL, FLOAT -> NUMBERS.compare(a, b);
      case BOOLEAN -> Boolean.compare(a.asBoolean(), b.asBoolean());
      case DATE -> Long.compare(epochDay(a.asText()), epochDay(b.asText()));
      case TIMESTAMP, TIMESTAMPTZ -> compareInstants(a.asText(), b.asText(), type);
      case TIME -> Long.compare(micros(a.asText()), micros(b.asText()));
      case TIMETZ -> Long.compare(utcMicros(a.asText()), utcMicros(b.asText()));
      case INTERVAL -> spanOf(a.asText()).compareTo(spanOf(b.asText()));
      default -> a.asText().compareTo(b.asText());
    };
  }

  private static final Comparator<JsonNode> NUMBERS =
      (a, b) -> {
        int ra = rank(a);
        int rb = rank(b);
        if (ra != rb || ra != 1) {
          return Integer.compare(ra, rb);
        }
        return a.decimalValue().compareTo(b.decimalValue());
      };

  /** -Infinity, a number, Infinity, NaN: PostgreSQL puts NaN above every number. */
  private static int rank(JsonNode n) {
    if (n.isNumber()) {
      return 1;
    }
    return switch (n.asText()) {
      case "-Infinity" -> 0;
      case "Infinity" -> 2;
      default -> 3;
    };
  }

  private static long epochDay(String date) {
    if (date.equals("infinity")) {
      return Long.MAX_VALUE;
    }
    if (date.equals("-infinity")) {
      return Long.MIN_VALUE;
    }
    return PgText.localDate(date).toEpochDay();
  }

  private static int compareInstants(String a, String b, ValueType type) {
    int ia = infinity(a);
    int ib = infinity(b);
    if (ia != 0 || ib != 0) {
      return Integer.compare(ia, ib);
    }
    return instant(a, type).compareTo(instant(b, type));
  }

  private static int infinity(String t) {
    return t.equals("infinity") ? 1 : t.equals("-infinity") ? -1 : 0;
  }

  private static Instant instant(String t, ValueType type) {
    return type == ValueType.TIMESTAMPTZ
        ? PgText.offsetDateTime(t).toInstant()
        : PgText.localDateTime(t).toInstant(ZoneOffset.UTC);
  }

  private static long micros(String time) {
    if (time.startsWith("24:00")) {
      return 86_400_000_000L;
    }
    return LocalTime.parse(time).toNanoOfDay() / 1000;
  }

  private static long utcMicros(String time) {
    OffsetTime t = PgText.offsetTime(time);
    return Math.floorMod(
        t.toLocalTime().toNanoOfDay() / 1000 - t.getOffset().getTotalSeconds() * 1_000_000L,
        86_400_000_000L);
  }

  private static final Pattern PART = Pattern.compile("(-?[\\d.]+)([YMDHS])");

  /** An interval's span in microseconds, a month as 30 days, as PostgreSQL compares intervals. */
  private static BigDecimal spanOf(String iso) {
    BigDecimal span = BigDecimal.ZERO;
    int t = iso.indexOf('T');
    Matcher m = PART.matcher(iso);
    while (m.find()) {
      boolean timePart = t >= 0 && m.start() > t;
      BigDecimal n = new BigDecimal(m.group(1));
      long unit =
          switch (m.group(2)) {
            case "Y" -> 360L * 86_400_000_000L;
            case "M" -> timePart ? 60_000_000L : 30L * 86_400_000_000L;
            case "D" -> 86_400_000_000L;
            case "H" -> 3_600_000_000L;
            default -> 1_000_000L;
          };
      span = span.add(n.multiply(BigDecimal.valueOf(unit)));
    }
    return span;
  }
}
