package dev.weir.common.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * timestamptz columns as epoch milliseconds, through java.time. {@link java.sql.Timestamp} goes
 * through the Julian calendar before 1582 and moves such a time by days (year 1 became 3 January).
 */
public final class Timestamps {

  private Timestamps() {}

  /**
   * The year of a time a job stores, checked: PostgreSQL's timestamptz and Elasticsearch's date
   * both take years 1 to 9999 written the same way (ISO-8601, four digits); outside them a write
   * fails, every time the job retries it. Checked when the value is read, so it goes to the DLQ.
   */
  public static int checkedYear(int year) {
    if (year < 1 || year > 9999) {
      throw new IllegalArgumentException("year " + year + " is outside 1..9999");
    }
    return year;
  }

  /** Sets parameter {@code i} to the time, or to NULL. */
  public static void set(PreparedStatement ps, int i, Long epochMs) throws SQLException {
    if (epochMs == null) {
      ps.setNull(i, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(i, OffsetDateTime.ofInstant(Instant.ofEpochMilli(epochMs), ZoneOffset.UTC));
    }
  }

  /** 10000-01-01T00:00:00Z: from there on, a year has more than four digits. */
  private static final long YEAR_10000 = 253_402_300_800_000L;

  private static final long MS_PER_DAY = 86_400_000L;

  /**
   * Appends the time as {@link Instant#toString()} writes it (ISO-8601 in UTC, milliseconds only
   * when not zero), without its formatter: the feed store writes one per detail of every entry it
   * writes, and {@code Instant.toString} was an eighth of the store's thread (issue 27).
   */
  public static void appendIso(StringBuilder out, long epochMs) {
    if (epochMs < 0 || epochMs >= YEAR_10000) {
      out.append(Instant.ofEpochMilli(epochMs));
      return;
    }
    LocalDate date = LocalDate.ofEpochDay(epochMs / MS_PER_DAY);
    int msOfDay = (int) (epochMs % MS_PER_DAY);
    int seconds = msOfDay / 1000;
    int ms = msOfDay % 1000;
    appendDigits(out, date.getYear(), 4).append('-');
    appendDigits(out, date.getMonthValue(), 2).append('-');
    appendDigits(out, date.getDayOfMonth(), 2).append('T');
    appendDigits(out, seconds / 3600, 2).append(':');
    appendDigits(out, seconds / 60 % 60, 2).append(':');
    appendDigits(out, seconds % 60, 2);
    if (ms != 0) {
      appendDigits(out.append('.'), ms, 3);
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

  /** Column {@code i} as epoch milliseconds, or null. */
  public static Long get(ResultSet rs, int i) throws SQLException {
    OffsetDateTime time = rs.getObject(i, OffsetDateTime.class);
    return time == null ? null : time.toInstant().toEpochMilli();
  }
}
