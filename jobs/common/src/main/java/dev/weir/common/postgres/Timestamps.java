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
