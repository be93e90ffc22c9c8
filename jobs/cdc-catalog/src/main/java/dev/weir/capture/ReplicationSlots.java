package dev.weir.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The logical replication slots of a PostgreSQL server, as a capture's health needs them: how far
 * behind the server's WAL each slot has confirmed (its lag) and how much WAL it makes the server
 * keep. A slot whose consumer is gone keeps WAL for ever, until the source's disk is full.
 */
public final class ReplicationSlots {

  private ReplicationSlots() {}

  /**
   * One slot as read now.
   *
   * @param lagBytes WAL written since the position the slot's consumer confirmed
   * @param retainedBytes WAL the server keeps for the slot (from its restart position)
   * @param currentLsn the server's WAL position when read
   * @param confirmedLsn the position the consumer confirmed
   */
  public record Slot(
      String name,
      String database,
      String plugin,
      boolean active,
      long lagBytes,
      long retainedBytes,
      long currentLsn,
      long confirmedLsn) {}

  private static final String SELECT =
      "SELECT slot_name, database, plugin, active,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,"
          + " pg_wal_lsn_diff(confirmed_flush_lsn, '0/0')::bigint"
          + " FROM pg_replication_slots WHERE slot_type = 'logical'";

  /** Every logical slot of the server {@code c} is connected to, by name. */
  public static List<Slot> all(Connection c) throws SQLException {
    List<Slot> slots = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(SELECT + " ORDER BY slot_name");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        slots.add(slot(rs));
      }
    }
    return slots;
  }

  /** The slot {@code name}, if the server has it. */
  public static Optional<Slot> named(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SELECT + " AND slot_name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(slot(rs)) : Optional.empty();
      }
    }
  }

  /** Drops the slot {@code name}; false when the server has none of that name. */
  public static boolean drop(Connection c, String name) throws SQLException {
    try (PreparedStatement drop =
        c.prepareStatement(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                + " WHERE slot_name = ?")) {
      drop.setString(1, name);
      try (ResultSet rs = drop.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static Slot slot(ResultSet rs) throws SQLException {
    return new Slot(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getBoolean(4),
        rs.getLong(5),
        rs.getLong(6),
        rs.getLong(7),
        rs.getLong(8));
  }

  /** A line for a person: {@code weir_catalog (catalog, active): 12 kB behind, keeps 3 MB}. */
  public static String describe(Slot slot) {
    return slot.name()
        + " ("
        + slot.database()
        + ", "
        + (slot.active() ? "active" : "INACTIVE: no consumer")
        + "): "
        + bytes(slot.lagBytes())
        + " behind, keeps "
        + bytes(slot.retainedBytes())
        + " of WAL";
  }

  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    if (bytes < 1024 * 1024) {
      return (bytes / 1024) + " kB";
    }
    if (bytes < 1024L * 1024 * 1024) {
      return String.format("%.1f MB", bytes / (1024.0 * 1024));
    }
    return String.format("%.2f GB", bytes / (1024.0 * 1024 * 1024));
  }
}
