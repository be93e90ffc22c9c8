package dev.weir.bench.support;

import dev.weir.common.postgres.TableStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What a stretch of WAL is made of, by record type (PostgreSQL's pg_walinspect): says where a
 * step's WAL bytes go, e.g. whole row versions or full-page images.
 */
public record WalRecords(String type, long count, long recordBytes, long fullPageImageBytes) {

  public long bytes() {
    return recordBytes + fullPageImageBytes;
  }

  /**
   * This database's WAL between two positions by the part it wrote to and record type, the largest
   * first: {@code table} (its heap and the heap's forks), {@code indexes}, {@code toast} (its TOAST
   * table and index), {@code other relations} (catalogs: what ANALYZE and autovacuum update), and
   * {@code commits} (of the transactions that wrote any of it). The type is {@code part:
   * manager/record}. Empty when pg_walinspect cannot be used.
   */
  public static List<WalRecords> ofTable(Connection c, String from, String to, String table) {
    List<WalRecords> records = new ArrayList<>();
    if (!walinspect(c)) {
      return records;
    }
    awaitFlushed(c, to);
    try (PreparedStatement s =
        c.prepareStatement(
            "WITH target AS (SELECT oid, reltoastrelid FROM pg_class WHERE oid = ?::regclass),"
                + " parts AS (SELECT pg_relation_filenode(r.oid) AS node, CASE"
                + " WHEN r.oid = t.oid THEN 'table' WHEN i.indrelid = t.oid THEN 'indexes'"
                + " ELSE 'toast' END AS part"
                + " FROM pg_class r LEFT JOIN pg_index i ON i.indexrelid = r.oid, target t"
                + " WHERE r.oid IN (t.oid, t.reltoastrelid) OR i.indrelid IN (t.oid, t.reltoastrelid)),"
                + " blocks AS (SELECT b.start_lsn, b.xid,"
                + " b.resource_manager || '/' || b.record_type AS type, b.record_length,"
                + " coalesce(b.block_fpi_length, 0) AS fpi, coalesce(p.part, 'other relations') AS part"
                + " FROM pg_get_wal_block_info(?::pg_lsn, ?::pg_lsn, false) b"
                + " LEFT JOIN parts p ON p.node = b.relfilenode"
                + " WHERE b.reldatabase = (SELECT oid FROM pg_database"
                + " WHERE datname = current_database())),"
                + " records AS (SELECT start_lsn, xid, type, record_length, min(part) AS part,"
                + " sum(fpi) AS fpi FROM blocks GROUP BY start_lsn, xid, type, record_length)"
                + " SELECT * FROM (SELECT part || ': ' || type AS type, count(*) AS n,"
                + " sum(record_length - fpi) AS rec, sum(fpi) AS fpi"
                + " FROM records GROUP BY part, type"
                + " UNION ALL SELECT 'commits: ' || resource_manager || '/' || record_type, count(*),"
                + " sum(record_length), 0 FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn)"
                + " WHERE resource_manager = 'Transaction'"
                + " AND xid IN (SELECT xid FROM records WHERE xid <> '0')"
                + " GROUP BY resource_manager, record_type) x ORDER BY rec + fpi DESC")) {
      s.setString(1, table);
      s.setString(2, from);
      s.setString(3, to);
      s.setString(4, from);
      s.setString(5, to);
      records.addAll(read(s));
    } catch (SQLException e) {
      throw new IllegalStateException("reading the WAL of " + table, e);
    }
    return records;
  }

  /**
   * The record types between two WAL positions, the largest first; empty when pg_walinspect cannot
   * be used (it needs a superuser to create it).
   */
  public static List<WalRecords> between(Connection c, String from, String to) {
    List<WalRecords> records = new ArrayList<>();
    if (!walinspect(c)) {
      return records;
    }
    awaitFlushed(c, to);
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT \"resource_manager/record_type\", count, record_size, fpi_size"
                + " FROM pg_get_wal_stats(?::pg_lsn, ?::pg_lsn, true)"
                + " WHERE count > 0 ORDER BY combined_size DESC")) {
      s.setString(1, from);
      s.setString(2, to);
      records.addAll(read(s));
    } catch (SQLException e) {
      records.clear();
    }
    return records;
  }

  /** Rows of (type, count, record bytes, full-page image bytes). */
  private static List<WalRecords> read(PreparedStatement s) throws SQLException {
    List<WalRecords> records = new ArrayList<>();
    try (ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        records.add(new WalRecords(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
      }
    }
    return records;
  }

  /** pg_walinspect reads only WAL flushed to disk: the step's last records may not be yet. */
  private static void awaitFlushed(Connection c, String to) {
    try {
      TableStats.awaitWalFlushed(c, to);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether pg_walinspect is there, created if not (which needs a superuser). */
  private static boolean walinspect(Connection c) {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
      return true;
    } catch (SQLException e) {
      return false;
    }
  }
}
