package dev.weir.documents.value;

import dev.weir.documents.definition.ValueType;
import dev.weir.schema.IsoInstant;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Dates, times, intervals and bytes in one text form whichever writer sent them (Debezium's epoch
 * days, micro- or milliseconds, its ISO strings and base64 bytes; PostgreSQL's own text): the form
 * {@code to_jsonb} gives them, which PostgreSQL reads back as the same value. Years beyond 9999,
 * {@code BC} and {@code infinity} included, where Java's own forms ({@code +10000}, {@code -0043})
 * are not PostgreSQL's. Two exceptions keep what the join wrote before: timestamptz is in UTC with
 * {@code Z} ({@code to_jsonb} writes the session's offset), and a timestamp's seconds are left out
 * when zero ({@code 2020-01-01T00:00}), as {@link LocalDateTime#toString} writes it.
 */
final class PgText {

  private PgText() {}

  private static final long MICROS_PER_DAY = 86_400_000_000L;

  /** Above this, a number for a timestamptz is taken for microseconds, else milliseconds. */
  private static final long MICROS_FROM = 100_000_000_000_000L;

  /**
   * PostgreSQL's date {@code infinity} and {@code -infinity} as Debezium 1.9 sends them. From its
   * snapshot: pgjdbc's infinity milliseconds ({@code PGStatement.DATE_POSITIVE_INFINITY}) made into
   * epoch days and cut to an int (a day either way, by the zone they passed through). From the
   * stream: PostgreSQL's own ±2^31 days from 2000 made days from 1970 in an int (infinity wraps
   * past the top). No date PostgreSQL holds is near any of them.
   */
  private static final long DATE_INFINITY_DAYS = -622_191_234L;

  private static final long DATE_MINUS_INFINITY_DAYS = -625_821_272L;

  private static final long STREAMED_DATE_INFINITY = Integer.MIN_VALUE + 10_956L;

  private static final long STREAMED_DATE_MINUS_INFINITY = Integer.MIN_VALUE + 10_957L;

  /** pgjdbc's timestamp infinities, which Debezium 1.9 passes on as the number of a timestamp. */
  private static final long PG_INFINITY = 9_223_372_036_825_200_000L;

  private static final long PG_MINUS_INFINITY = -9_223_372_036_832_400_000L;

  /** {@code infinity} or {@code -infinity} for Debezium's number of one, else null. */
  private static String infinity(long n, long plus, long minus, long slack) {
    if (Math.abs(n - plus) <= slack) {
      return "infinity";
    }
    return Math.abs(n - minus) <= slack ? "-infinity" : null;
  }

  static String date(Object raw) {
    if (raw instanceof Number n) {
      String infinity = infinity(n.longValue(), DATE_INFINITY_DAYS, DATE_MINUS_INFINITY_DAYS, 1);
      if (infinity == null) {
        infinity = infinity(n.longValue(), STREAMED_DATE_INFINITY, STREAMED_DATE_MINUS_INFINITY, 0);
      }
      return infinity != null ? infinity : date(LocalDate.ofEpochDay(n.longValue()));
    }
    String s = raw.toString().trim();
    if (isInfinity(s)) {
      return s.toLowerCase(Locale.ROOT);
    }
    return date(localDate(s));
  }

  /**
   * A date as PostgreSQL or java.time writes it ({@code 0044-03-15 BC}, {@code 10000-01-01}, {@code
   * +10000-01-01}, {@code -0043-03-15}), its year made astronomical ({@code 1 BC} is 0, a leap
   * year).
   */
  static LocalDate localDate(String text) {
    String s = text.trim();
    boolean bc = s.endsWith(" BC");
    if (bc) {
      s = s.substring(0, s.length() - 3).trim();
    }
    Matcher m = DATE.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a date");
    }
    int year = Integer.parseInt(m.group(1));
    return LocalDate.of(
        bc ? 1 - year : year, Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
  }

  private static final Pattern DATE = Pattern.compile("([+-]?\\d{4,})-(\\d{2})-(\\d{2})");

  /**
   * A date and time of day, {@code T} or a space between them, {@code BC} after them (an offset, if
   * any, is the caller's).
   */
  static LocalDateTime localDateTime(String text) {
    String s = text.trim();
    boolean bc = s.endsWith(" BC");
    if (bc) {
      s = s.substring(0, s.length() - 3).trim();
    }
    int t = Math.max(s.indexOf('T', 4), s.indexOf(' ', 4));
    if (t < 0) {
      throw new IllegalArgumentException("not a timestamp");
    }
    LocalDate date = localDate(s.substring(0, t) + (bc ? " BC" : ""));
    return LocalDateTime.of(date, LocalTime.parse(s.substring(t + 1)));
  }

  /** {@code 2024-01-02}, {@code 10000-01-01}, {@code 0044-03-15 BC}. */
  static String date(LocalDate d) {
    StringBuilder out = new StringBuilder(16);
    appendDate(out, d);
    if (d.getYear() < 1) {
      out.append(" BC");
    }
    return out.toString();
  }

  /** A timestamp without time zone; a number is Debezium's by the column's precision. */
  static String timestamp(Object raw, String pgType) {
    LocalDateTime t;
    if (raw instanceof Number n) {
      long x = n.longValue();
      String infinity = infinity(x, PG_INFINITY, PG_MINUS_INFINITY, 0);
      if (infinity != null) {
        return infinity;
      }
      Instant i = ValueType.precision(pgType) <= 3 ? Instant.ofEpochMilli(x) : micros(x);
      t = LocalDateTime.ofInstant(i, ZoneOffset.UTC);
    } else {
      String s = raw.toString().trim();
      if (isInfinity(s)) {
        return s.toLowerCase(Locale.ROOT);
      }
      t = localDateTime(s);
    }
    if (t.getYear() >= 1 && t.getYear() <= 9999) {
      return t.toString();
    }
    StringBuilder out = new StringBuilder(32);
    appendDate(out, t.toLocalDate());
    out.append('T').append(t.toLocalTime());
    return t.getYear() < 1 ? out.append(" BC").toString() : out.toString();
  }

  static String timestamptz(Object raw) {
    Instant instant;
    if (raw instanceof Number n) {
      long x = n.longValue();
      String infinity = infinity(x, PG_INFINITY, PG_MINUS_INFINITY, 0);
      if (infinity != null) {
        return infinity;
      }
      // Debezium's MicroTimestamp vs Kafka Connect's Timestamp (milliseconds).
      instant = Math.abs(x) > MICROS_FROM ? micros(x) : Instant.ofEpochMilli(x);
    } else {
      String s = raw.toString().trim();
      if (isInfinity(s)) {
        return s.toLowerCase(Locale.ROOT);
      }
      instant = s.endsWith(" BC") ? null : IsoInstant.parse(s.replace(' ', 'T'));
      if (instant == null) {
        instant = offsetDateTime(s).toInstant();
      }
    }
    OffsetDateTime utc = instant.atOffset(ZoneOffset.UTC);
    if (utc.getYear() >= 1 && utc.getYear() <= 9999) {
      return instant.toString();
    }
    StringBuilder out = new StringBuilder(32);
    appendDate(out, utc.toLocalDate());
    out.append('T');
    appendTime(out, utc.toLocalTime().getHour(), utc.toLocalTime(), utc.getNano() / 1000, true);
    out.append('Z');
    return utc.getYear() < 1 ? out.append(" BC").toString() : out.toString();
  }

  /** A time of day; a number is Debezium's MicroTime, or its Time (milliseconds) for time(0..3). */
  static String time(Object raw, String pgType) {
    if (raw instanceof Number n) {
      long micros = ValueType.precision(pgType) <= 3 ? n.longValue() * 1000 : n.longValue();
      if (micros < 0 || micros > MICROS_PER_DAY) {
        throw new IllegalArgumentException("not a time of day");
      }
      return time(micros);
    }
    String s = raw.toString().trim();
    if (s.startsWith("24:00")) {
      return time(MICROS_PER_DAY);
    }
    LocalTime t = LocalTime.parse(s);
    return time(t.toNanoOfDay() / 1000);
  }

  /**
   * A time with time zone at its own offset, as {@code to_jsonb} writes it: {@code
   * 13:14:15.123+02}, {@code -05:30}, {@code +00} for UTC (a number, Kafka Connect's Time, is UTC).
   */
  static String timetz(Object raw) {
    if (raw instanceof Number n) {
      return time(Math.floorMod(n.longValue(), MICROS_PER_DAY)) + "+00";
    }
    OffsetTime t = offsetTime(raw.toString().trim());
    return time(t.toLocalTime().toNanoOfDay() / 1000) + offset(t.getOffset());
  }

  /** An offset as PostgreSQL writes it: {@code +02}, {@code -05:30}, {@code +05:30:15}. */
  private static String offset(ZoneOffset offset) {
    int seconds = Math.abs(offset.getTotalSeconds());
    StringBuilder out = new StringBuilder(9).append(offset.getTotalSeconds() < 0 ? '-' : '+');
    out.append(String.format("%02d", seconds / 3600));
    if (seconds % 3600 != 0) {
      out.append(String.format(":%02d", seconds / 60 % 60));
      if (seconds % 60 != 0) {
        out.append(String.format(":%02d", seconds % 60));
      }
    }
    return out.toString();
  }

  /** A time with time zone's text, its offset as {@code Z}, {@code +02}, {@code +02:00}. */
  static OffsetTime offsetTime(String s) {
    Matcher m = SHORT_OFFSET.matcher(s);
    if (m.find()) {
      s = s.substring(0, m.start()) + m.group(1) + m.group(2) + ":00"; // +02 → +02:00
    }
    return OffsetTime.parse(s);
  }

  private static final Pattern SHORT_OFFSET = Pattern.compile("([+-])(\\d{2})$");

  /** {@code HH:MM:SS}, then the fraction without trailing zeros. */
  private static String time(long micros) {
    StringBuilder out = new StringBuilder(15);
    int hour = (int) (micros / 3_600_000_000L);
    LocalTime t = hour == 24 ? LocalTime.MIDNIGHT : LocalTime.ofNanoOfDay(micros * 1000);
    appendTime(out, hour, t, (int) (micros % 1_000_000), false);
    return out.toString();
  }

  /**
   * An interval as PostgreSQL's iso_8601 style writes it, from an ISO-8601 duration (Debezium's
   * interval.handling.mode=string, PostgreSQL's own) or a number of microseconds (Debezium's
   * default, which has already folded months and days into it).
   */
  static String interval(Object raw) {
    if (raw instanceof Number n) {
      return interval(0, 0, n.longValue());
    }
    String s = raw.toString().trim().toUpperCase(Locale.ROOT);
    boolean negated = s.startsWith("-");
    Matcher m = ISO_DURATION.matcher(negated ? s.substring(1) : s);
    if (!m.matches() || s.endsWith("P") || s.endsWith("T")) {
      throw new IllegalArgumentException("not an ISO-8601 duration");
    }
    long sign = negated ? -1 : 1;
    long months = sign * (12 * number(m.group(1)) + number(m.group(2)));
    long days = sign * (7 * number(m.group(3)) + number(m.group(4)));
    BigDecimal seconds = m.group(7) == null ? BigDecimal.ZERO : new BigDecimal(m.group(7));
    long micros =
        Math.addExact(
            Math.addExact(
                Math.multiplyExact(number(m.group(5)), 3_600_000_000L),
                Math.multiplyExact(number(m.group(6)), 60_000_000L)),
            // Debezium writes the seconds from a double (6.788999999999999 for 6.789): to the
            // microsecond, PostgreSQL's precision.
            seconds.movePointRight(6).setScale(0, RoundingMode.HALF_EVEN).longValueExact());
    return interval(months, days, sign * micros);
  }

  /** {@code P[nY][nM][nW][nD][T[nH][nM][n[.n]S]]}, each part signed (PostgreSQL's own form). */
  private static final Pattern ISO_DURATION =
      Pattern.compile(
          "P(?:([+-]?\\d+)Y)?(?:([+-]?\\d+)M)?(?:([+-]?\\d+)W)?(?:([+-]?\\d+)D)?"
              + "(?:T(?:([+-]?\\d+)H)?(?:([+-]?\\d+)M)?(?:([+-]?\\d+(?:\\.\\d+)?)S)?)?");

  private static long number(String part) {
    return part == null ? 0 : Long.parseLong(part);
  }

  /** PostgreSQL's EncodeInterval, iso_8601 style. */
  static String interval(long months, long days, long micros) {
    long year = months / 12;
    long mon = months % 12;
    long hour = micros / 3_600_000_000L;
    long rest = micros % 3_600_000_000L;
    long min = rest / 60_000_000L;
    rest = rest % 60_000_000L;
    if (year == 0 && mon == 0 && days == 0 && hour == 0 && min == 0 && rest == 0) {
      return "PT0S";
    }
    StringBuilder out = new StringBuilder("P");
    part(out, year, 'Y');
    part(out, mon, 'M');
    part(out, days, 'D');
    if (hour != 0 || min != 0 || rest != 0) {
      out.append('T');
    }
    part(out, hour, 'H');
    part(out, min, 'M');
    if (rest != 0) {
      if (rest < 0) {
        out.append('-');
      }
      out.append(
          new BigDecimal(Math.abs(rest)).movePointLeft(6).stripTrailingZeros().toPlainString());
      out.append('S');
    }
    return out.toString();
  }

  private static void part(StringBuilder out, long value, char unit) {
    if (value != 0) {
      out.append(value).append(unit);
    }
  }

  /** Bytes as PostgreSQL writes them, {@code \x0102ff}: from that form, or from base64. */
  static String bytea(Object raw) {
    String s = raw.toString().trim();
    if (s.startsWith("\\x")) {
      return "\\x" + HexFormat.of().formatHex(HexFormat.of().parseHex(s.substring(2)));
    }
    return "\\x" + HexFormat.of().formatHex(Base64.getDecoder().decode(s));
  }

  private static Instant micros(long x) {
    return Instant.ofEpochSecond(Math.floorDiv(x, 1_000_000), Math.floorMod(x, 1_000_000) * 1_000L);
  }

  private static boolean isInfinity(String s) {
    return s.equalsIgnoreCase("infinity") || s.equalsIgnoreCase("-infinity");
  }

  /** A timestamp with its offset ({@code Z}, {@code +02}, {@code +02:00}; none is UTC). */
  static OffsetDateTime offsetDateTime(String text) {
    String s = text.trim();
    boolean bc = s.endsWith(" BC");
    if (bc) {
      s = s.substring(0, s.length() - 3).trim();
    }
    ZoneOffset offset = ZoneOffset.UTC;
    Matcher m = OFFSET.matcher(s);
    if (m.find() && m.start() > 10) {
      String o =
          m.group().equals("Z") ? "Z" : m.group().length() == 3 ? m.group() + ":00" : m.group();
      offset = ZoneOffset.of(o);
      s = s.substring(0, m.start());
    }
    return OffsetDateTime.of(localDateTime(s + (bc ? " BC" : "")), offset);
  }

  /** An offset at the end: Z, +hh, +hh:mm or +hh:mm:ss. */
  private static final Pattern OFFSET = Pattern.compile("(Z|[+-]\\d{2}(:\\d{2}(:\\d{2})?)?)$");

  /** The date part, its year as PostgreSQL writes it (at least four digits, 1 - year for BC). */
  private static void appendDate(StringBuilder out, LocalDate d) {
    int year = d.getYear() < 1 ? 1 - d.getYear() : d.getYear();
    pad(out, year, 4).append('-');
    pad(out, d.getMonthValue(), 2).append('-');
    pad(out, d.getDayOfMonth(), 2);
  }

  private static void appendTime(
      StringBuilder out, int hour, LocalTime t, int micros, boolean fractionInThrees) {
    pad(out, hour, 2).append(':');
    pad(out, t.getMinute(), 2).append(':');
    pad(out, t.getSecond(), 2);
    if (micros > 0) {
      String digits = String.format("%06d", micros);
      if (fractionInThrees && digits.endsWith("000")) {
        digits = digits.substring(0, 3);
      } else if (!fractionInThrees) {
        digits = digits.replaceAll("0+$", "");
      }
      out.append('.').append(digits);
    }
  }

  private static StringBuilder pad(StringBuilder out, long value, int width) {
    String digits = Long.toString(value);
    for (int i = digits.length(); i < width; i++) {
      out.append('0');
    }
    return out.append(digits);
  }

  /** Whether the text is one PostgreSQL writes for a non-finite number. */
  static boolean isNonFinite(String s) {
    return s.equals("NaN") || s.equals("Infinity") || s.equals("-Infinity");
  }
}
