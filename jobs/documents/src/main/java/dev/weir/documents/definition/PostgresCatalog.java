package dev.weir.documents.definition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/** A PostgreSQL database's catalog ({@code pg_catalog}), read once when a job or check starts. */
public final class PostgresCatalog implements SourceCatalog {

  private final Connection connection;

  public PostgresCatalog(Connection connection) {
    this.connection = connection;
  }

  @Override
  public Optional<TableInfo> table(String schema, String table) throws SQLException {
    Long oid = oid(schema, table);
    if (oid == null) {
      return Optional.empty();
    }
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
                + " WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
      s.setLong(1, oid);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          columns.put(rs.getString(1), rs.getString(2));
        }
      }
    }
    List<String> primaryKey = new ArrayList<>();
    List<TableInfo.ForeignKey> foreignKeys = new ArrayList<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT c.contype, c.conkey, c.confkey, rn.nspname, r.relname, c.confrelid,"
                + " c.conname FROM pg_constraint c"
                + " LEFT JOIN pg_class r ON r.oid = c.confrelid"
                + " LEFT JOIN pg_namespace rn ON rn.oid = r.relnamespace"
                + " WHERE c.conrelid = ? AND c.contype IN ('p', 'f') ORDER BY c.conname")) {
      s.setLong(1, oid);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          List<String> own = names(oid, (Short[]) rs.getArray(2).getArray());
          if ("p".equals(rs.getString(1))) {
            primaryKey.addAll(own);
          } else {
            List<String> referenced = names(rs.getLong(6), (Short[]) rs.getArray(3).getArray());
            foreignKeys.add(
                new TableInfo.ForeignKey(own, rs.getString(4), rs.getString(5), referenced));
          }
        }
      }
    }
    return Optional.of(new TableInfo(schema, table, columns, primaryKey, foreignKeys));
  }

  private Long oid(String schema, String table) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p', 'v', 'm')")) {
      s.setString(1, schema);
      s.setString(2, table);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  /** Column names of attribute numbers, in the constraint's order. */
  private List<String> names(long relation, Short[] attnums) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT attname FROM pg_attribute WHERE attrelid = ? AND attnum = ?")) {
      for (Short attnum : Arrays.asList(attnums)) {
        s.setLong(1, relation);
        s.setShort(2, attnum);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }
}
