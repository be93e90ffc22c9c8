package dev.weir.identity;

import dev.weir.common.postgres.Timestamps;
import dev.weir.identity.IdentityRecord.Column;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The identity table in PostgreSQL. An UPDATE names only the changed columns; earliest_seen is
 * written as {@code LEAST(earliest_seen, ?)}, so it only ever goes down, whoever writes it and in
 * whatever order. A new row is inserted whole; if it exists by then, only the changed columns are
 * set.
 */
public final class PostgresIdentityStore implements IdentityStore {

  private static final String SELECT =
      "SELECT project_id, distinct_id, canonical_id, earliest_seen, identify_seen, alias_seen,"
          + " people_update_seen, updated_at FROM identity_mapping";

  private final Connection connection;
  private long statements;
  private long columnsWritten;
  private long rowsWritten;

  public PostgresIdentityStore(Connection connection) throws SQLException {
    this.connection = connection;
    connection.setAutoCommit(false);
  }

  @Override
  public Map<IdentityKey, IdentityRecord> get(Collection<IdentityKey> keys) throws SQLException {
    Map<String, List<String>> byProject = IdentityKey.byProject(keys);
    Map<IdentityKey, IdentityRecord> found = new HashMap<>();
    try (PreparedStatement ps =
        connection.prepareStatement(SELECT + " WHERE project_id = ? AND distinct_id = ANY(?)")) {
      for (Map.Entry<String, List<String>> project : byProject.entrySet()) {
        Array ids = connection.createArrayOf("text", project.getValue().toArray());
        ps.setString(1, project.getKey());
        ps.setArray(2, ids);
        statements++;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            IdentityRecord r = read(rs);
            found.put(r.key(), r);
          }
        }
      }
    }
    connection.commit();
    return found;
  }

  @Override
  public List<IdentityRecord> byCanonical(String projectId, String canonicalId, int limit)
      throws SQLException {
    List<IdentityRecord> rows = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            SELECT + " WHERE project_id = ? AND canonical_id = ? ORDER BY distinct_id LIMIT ?")) {
      ps.setString(1, projectId);
      ps.setString(2, canonicalId);
      ps.setInt(3, limit);
      statements++;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(read(rs));
        }
      }
    }
    connection.commit();
    return rows;
  }

  @Override
  public Void write(Collection<IdentityRecord> records) throws SQLException {
    Map<Integer, List<IdentityRecord>> updates = new LinkedHashMap<>();
    Map<Integer, List<IdentityRecord>> inserts = new LinkedHashMap<>();
    for (IdentityRecord r : records) {
      if (r.isChanged()) {
        (r.isStored() ? updates : inserts)
            .computeIfAbsent(r.changedMask(), m -> new ArrayList<>())
            .add(r);
      }
    }
    try {
      for (List<IdentityRecord> group : updates.values()) {
        for (IdentityRecord missing : update(group)) {
          // Gone meanwhile (e.g. a restored database): write it whole.
          inserts.computeIfAbsent(missing.changedMask(), m -> new ArrayList<>()).add(missing);
        }
      }
      for (List<IdentityRecord> group : inserts.values()) {
        insert(group);
      }
      connection.commit();
    } catch (SQLException e) {
      connection.rollback();
      throw e;
    }
    rowsWritten += records.size();
    return null;
  }

  private List<IdentityRecord> update(List<IdentityRecord> group) throws SQLException {
    List<Column> columns = group.get(0).changedColumns();
    List<String> set = new ArrayList<>();
    for (Column c : columns) {
      set.add(
          c == Column.EARLIEST_SEEN ? "earliest_seen = LEAST(earliest_seen, ?)" : c.sql + " = ?");
    }
    String sql =
        "UPDATE identity_mapping SET "
            + String.join(", ", set)
            + " WHERE project_id = ? AND distinct_id = ?";
    List<IdentityRecord> missing = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      for (IdentityRecord r : group) {
        int i = 1;
        for (Column c : columns) {
          bind(ps, i++, c, r);
        }
        ps.setString(i++, r.projectId());
        ps.setString(i, r.distinctId());
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      statements += group.size();
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 0) {
          missing.add(group.get(i));
        } else {
          columnsWritten += columns.size();
        }
      }
    }
    return missing;
  }

  private void insert(List<IdentityRecord> group) throws SQLException {
    List<Column> columns = group.get(0).changedColumns();
    List<String> set = new ArrayList<>();
    for (Column c : columns) {
      set.add(
          c == Column.EARLIEST_SEEN
              ? "earliest_seen = LEAST(identity_mapping.earliest_seen, excluded.earliest_seen)"
              : c.sql + " = excluded." + c.sql);
    }
    String sql =
        "INSERT INTO identity_mapping (project_id, distinct_id, canonical_id, earliest_seen,"
            + " identify_seen, alias_seen, people_update_seen, updated_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, COALESCE(?, now()))"
            + " ON CONFLICT (project_id, distinct_id) DO "
            + (set.isEmpty() ? "NOTHING" : "UPDATE SET " + String.join(", ", set));
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      for (IdentityRecord r : group) {
        ps.setString(1, r.projectId());
        ps.setString(2, r.distinctId());
        int i = 3;
        for (Column c : Column.values()) {
          bind(ps, i++, c, r);
        }
        ps.addBatch();
      }
      ps.executeBatch();
      statements += group.size();
      columnsWritten += (long) group.size() * (2 + Column.values().length);
    }
  }

  private static void bind(PreparedStatement ps, int i, Column c, IdentityRecord r)
      throws SQLException {
    switch (c) {
      case CANONICAL_ID -> ps.setString(i, r.canonicalId());
      case EARLIEST_SEEN -> Timestamps.set(ps, i, r.earliestSeen());
      case IDENTIFY_SEEN -> ps.setBoolean(i, r.identifySeen());
      case ALIAS_SEEN -> ps.setBoolean(i, r.aliasSeen());
      case PEOPLE_UPDATE_SEEN -> ps.setBoolean(i, r.peopleUpdateSeen());
      case UPDATED_AT -> Timestamps.set(ps, i, r.updatedAt());
    }
  }

  private static IdentityRecord read(ResultSet rs) throws SQLException {
    return IdentityRecord.stored(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        Timestamps.get(rs, 4),
        rs.getBoolean(5),
        rs.getBoolean(6),
        rs.getBoolean(7),
        Timestamps.get(rs, 8));
  }

  @Override
  public long rowsWritten() {
    return rowsWritten;
  }

  @Override
  public long statements() {
    return statements;
  }

  @Override
  public long columnsWritten() {
    return columnsWritten;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
