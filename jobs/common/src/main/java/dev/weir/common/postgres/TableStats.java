package dev.weir.common.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What PostgreSQL counted for one table (pg_stat_all_tables, cumulative since the table was
 * created): rows inserted, updated, deleted, dead, and tuples inserted into its TOAST table (one
 * per chunk of a large value written). For benchmarks, tests and the demo.
 */
public record TableStats(long inserted, long updated, long deleted, long dead, long toastInserted) {

  /**
   * How long another backend may hold counts it has not reported: at most one report a second, and
   * a backend that wrote within a second of its last report waits until it has been idle for 10 s
   * (PostgreSQL's PGSTAT_IDLE_INTERVAL). A connection that closes reports at once.
   */
  static final long REPORT_DELAY_MILLIS = 11_000;

  /**
   * The counts for {@code table}, exact: everything any session did before the call is counted.
   * That takes {@link #REPORT_DELAY_MILLIS} (an earlier reading missed a job's last writes, which
   * then showed up in the next step's difference).
   */
  public static TableStats read(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement()) {
      sleep(REPORT_DELAY_MILLIS);
      try (ResultSet rs =
          s.executeQuery(
              "SELECT t.n_tup_ins, t.n_tup_upd, t.n_tup_del, t.n_dead_tup,"
                  + " coalesce(toast.n_tup_ins, 0)"
                  + " FROM pg_class r JOIN pg_stat_all_tables t ON t.relid = r.oid"
                  + " LEFT JOIN pg_stat_all_tables toast ON toast.relid = r.reltoastrelid"
                  + " WHERE r.oid = to_regclass('"
                  + table.replace("'", "''")
                  + "')")) {
        if (!rs.next()) {
          throw new SQLException("no table " + table);
        }
        return new TableStats(
            rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
      }
    }
  }

  /**
   * The current WAL insert position: the end of every record inserted so far. Not {@code
   * pg_current_wal_lsn()}, the position written out so far, which lags behind by up to three WAL
   * writer delays under {@code synchronous_commit = off} (the local stack's setting): read right
   * after a step, it left out the step's last transactions (a thousand rows of ten thousand).
   */
  public static String walPosition(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** WAL bytes written (by everything on the server) since {@code position}. */
  public static long walBytesSince(Connection c, String position) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '"
                    + position.replace("'", "")
                    + "')::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Waits until the WAL up to {@code position} is flushed (the WAL writer does so within a few
   * hundred milliseconds), so that pg_walinspect can read all of it.
   */
  public static void awaitWalFlushed(Connection c, String position) throws SQLException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    try (PreparedStatement s =
        c.prepareStatement("SELECT pg_current_wal_flush_lsn() >= ?::pg_lsn")) {
      s.setString(1, position);
      while (true) {
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          if (rs.getBoolean(1)) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new SQLException("WAL not flushed up to " + position + " within 10 s");
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SQLException("interrupted waiting for the WAL flush", e);
        }
      }
    }
  }

  /** The counts of this minus an earlier reading. */
  public TableStats minus(TableStats earlier) {
    return new TableStats(
        inserted - earlier.inserted,
        updated - earlier.updated,
        deleted - earlier.deleted,
        dead - earlier.dead,
        toastInserted - earlier.toastInserted);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
