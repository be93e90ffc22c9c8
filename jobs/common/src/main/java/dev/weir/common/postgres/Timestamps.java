package dev.weir.common.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
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

  /** Column {@code i} as epoch milliseconds, or null. */
  public static Long get(ResultSet rs, int i) throws SQLException {
    OffsetDateTime time = rs.getObject(i, OffsetDateTime.class);
    return time == null ? null : time.toInstant().toEpochMilli();
  }
}
