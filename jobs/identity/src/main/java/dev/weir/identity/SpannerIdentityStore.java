package dev.weir.identity;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.weir.identity.IdentityRecord.Column;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The identity table in Cloud Spanner ({@code schemas/spanner/identity_mapping.sql}). Every write
 * is an INSERT_OR_UPDATE mutation naming the key and only the changed columns: a row that exists
 * keeps its other columns, and a missing row is created with them. Never an UPDATE: in Spanner an
 * UPDATE of a row that is gone (deleted behind the job, a restored database) fails the whole commit
 * with NOT_FOUND, with every other change of the batch, and again on every retry.
 *
 * <p>A row created this way has only the named columns; the others take their DEFAULT (the NOT NULL
 * flags: false) or NULL, and canonical_id NULL means "maps to itself". So a new row never needs a
 * read first. For a row deleted behind the job, what the deletion removed and the write does not
 * name stays removed (the PostgreSQL store writes such a row whole, from the job's view).
 *
 * <p>The mutations of a write are committed together in one round trip, without a transaction begun
 * first ({@code writeAtLeastOnce}). A commit that Spanner aborts (contention; the emulator aborts
 * every concurrent read-write transaction) is retried by the client; one that may have been applied
 * before a retry applies the same values again, which changes nothing: each column of a row has one
 * writer, one write at a time. With a transaction begun first, a concurrent transaction on the
 * emulator failed the commit with FAILED_PRECONDITION or NOT_FOUND instead, which is not retried.
 *
 * <p>earliest_seen is written as a value: each distinct id has one writer of it (its enricher key),
 * which only ever lowers it.
 */
public final class SpannerIdentityStore implements IdentityStore {

  static final String TABLE = "identity_mapping";

  private static final String SELECT =
      "SELECT project_id, distinct_id, canonical_id, earliest_seen, identify_seen, alias_seen,"
          + " people_update_seen, updated_at FROM identity_mapping";

  private final DatabaseClient client;
  private final AutoCloseable owner;
  private long statements;
  private long columnsWritten;
  private long rowsWritten;

  /**
   * @param owner closed with the store (the Spanner instance that made the client), or null
   */
  public SpannerIdentityStore(DatabaseClient client, AutoCloseable owner) {
    this.client = client;
    this.owner = owner;
  }

  @Override
  public Map<IdentityKey, IdentityRecord> get(Collection<IdentityKey> keys) {
    Map<String, List<String>> byProject = IdentityKey.byProject(keys);
    Map<IdentityKey, IdentityRecord> found = new HashMap<>();
    for (Map.Entry<String, List<String>> project : byProject.entrySet()) {
      Statement query =
          Statement.newBuilder(
                  SELECT + " WHERE project_id = @project AND distinct_id IN UNNEST(@ids)")
              .bind("project")
              .to(project.getKey())
              .bind("ids")
              .toStringArray(project.getValue())
              .build();
      statements++;
      try (ResultSet rs = client.singleUse().executeQuery(query)) {
        while (rs.next()) {
          IdentityRecord r = read(rs);
          found.put(r.key(), r);
        }
      }
    }
    return found;
  }

  @Override
  public List<IdentityRecord> byCanonical(String projectId, String canonicalId, int limit) {
    Statement query =
        Statement.newBuilder(
                SELECT
                    + " WHERE project_id = @project AND canonical_id = @canonical"
                    + " ORDER BY distinct_id LIMIT @limit")
            .bind("project")
            .to(projectId)
            .bind("canonical")
            .to(canonicalId)
            .bind("limit")
            .to(limit)
            .build();
    statements++;
    List<IdentityRecord> rows = new ArrayList<>();
    try (ResultSet rs = client.singleUse().executeQuery(query)) {
      while (rs.next()) {
        rows.add(read(rs));
      }
    }
    return rows;
  }

  @Override
  public Void write(Collection<IdentityRecord> records) {
    List<Mutation> mutations = new ArrayList<>();
    long columns = 0;
    for (IdentityRecord r : records) {
      if (!r.isChanged()) {
        continue;
      }
      Mutation.WriteBuilder m = Mutation.newInsertOrUpdateBuilder(TABLE);
      m.set("project_id").to(r.projectId()).set("distinct_id").to(r.distinctId());
      for (Column c : r.changedColumns()) {
        switch (c) {
          case CANONICAL_ID -> m.set(c.sql).to(r.canonicalId());
          case EARLIEST_SEEN -> m.set(c.sql).to(timestamp(r.earliestSeen()));
          case IDENTIFY_SEEN -> m.set(c.sql).to(r.identifySeen());
          case ALIAS_SEEN -> m.set(c.sql).to(r.aliasSeen());
          case PEOPLE_UPDATE_SEEN -> m.set(c.sql).to(r.peopleUpdateSeen());
          case UPDATED_AT -> m.set(c.sql).to(timestamp(r.updatedAt()));
        }
        columns++;
      }
      mutations.add(m.build());
    }
    if (!mutations.isEmpty()) {
      client.writeAtLeastOnce(mutations);
      statements += mutations.size();
      columnsWritten += columns;
    }
    rowsWritten += records.size();
    return null;
  }

  private static Timestamp timestamp(Long epochMs) {
    return epochMs == null ? null : Timestamp.ofTimeMicroseconds(epochMs * 1000);
  }

  private static IdentityRecord read(ResultSet rs) {
    String distinctId = rs.getString("distinct_id");
    return IdentityRecord.stored(
        rs.getString("project_id"),
        distinctId,
        rs.isNull("canonical_id") ? distinctId : rs.getString("canonical_id"),
        rs.isNull("earliest_seen") ? null : millis(rs.getTimestamp("earliest_seen")),
        !rs.isNull("identify_seen") && rs.getBoolean("identify_seen"),
        !rs.isNull("alias_seen") && rs.getBoolean("alias_seen"),
        !rs.isNull("people_update_seen") && rs.getBoolean("people_update_seen"),
        rs.isNull("updated_at") ? null : millis(rs.getTimestamp("updated_at")));
  }

  private static long millis(Timestamp t) {
    return t.getSeconds() * 1000 + t.getNanos() / 1_000_000;
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
  public void close() throws Exception {
    if (owner != null) {
      owner.close();
    }
  }
}
