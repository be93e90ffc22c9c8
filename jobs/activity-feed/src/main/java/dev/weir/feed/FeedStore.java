package dev.weir.feed;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.Timestamps;
import dev.weir.common.store.BatchStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes feed entries to PostgreSQL: an existing entry is UPDATEd in place naming only the columns
 * that changed; a new entry is INSERTed (on a replay that finds the row, it updates it only if
 * something differs); an archived entry is copied to feed_archive, then deleted from feed_entry; a
 * retracted provisional entry is deleted (rare: see {@link Collator}). Every statement is
 * idempotent, so replays after a crash change nothing visible.
 */
public final class FeedStore implements BatchStore<FeedWrite, Void> {

  static final String COLUMNS =
      "workspace_id, entry_id, actor_id, element_type, element_id, action, first_at, last_at, event_count, recent_details";

  private static final String INSERT =
      "INSERT INTO feed_entry ("
          + COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)"
          + " ON CONFLICT (workspace_id, entry_id) DO UPDATE SET first_at = excluded.first_at,"
          + " last_at = excluded.last_at, event_count = excluded.event_count, recent_details = excluded.recent_details"
          + " WHERE (feed_entry.first_at, feed_entry.last_at, feed_entry.event_count, feed_entry.recent_details)"
          + " IS DISTINCT FROM (excluded.first_at, excluded.last_at, excluded.event_count, excluded.recent_details)";

  private static final String ARCHIVE =
      "INSERT INTO feed_archive ("
          + COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)"
          + " ON CONFLICT (workspace_id, entry_id) DO NOTHING";

  private static final String DELETE_HOT =
      "DELETE FROM feed_entry WHERE workspace_id = ? AND entry_id = ?";

  private final Connection hot;
  private final Connection archive;
  private final boolean sameDatabase;
  private long rowsWritten;

  /**
   * @param archive the archive's connection; the same object as {@code hot} when both tables live
   *     in one database, and then a move is one transaction
   */
  public FeedStore(Connection hot, Connection archive) throws SQLException {
    this.hot = hot;
    this.archive = archive;
    this.sameDatabase = hot == archive;
    hot.setAutoCommit(false);
    archive.setAutoCommit(false);
  }

  /**
   * The hot store at postgres.url, the archive at archive.postgres.url (one connection if the
   * same).
   */
  public static FeedStore open(WeirConfig config) throws SQLException {
    String hotUrl = config.get(WeirOptions.POSTGRES_URL);
    String archiveUrl = Migrations.archiveUrl(config);
    Connection hot = PostgresConnectionProvider.open(config, hotUrl);
    Connection archive =
        archiveUrl.equals(hotUrl) ? hot : PostgresConnectionProvider.open(config, archiveUrl);
    return new FeedStore(hot, archive);
  }

  @Override
  public long rowsWritten() {
    return rowsWritten;
  }

  /** Writes a batch (already coalesced: at most one write per entry). */
  @Override
  public Void write(Collection<FeedWrite> writes) throws SQLException {
    List<FeedWrite> inserts = new ArrayList<>();
    Map<Integer, List<FeedWrite>> updatesByColumns = new LinkedHashMap<>();
    List<FeedWrite> archives = new ArrayList<>();
    List<FeedWrite> retractions = new ArrayList<>();
    for (FeedWrite w : writes) {
      if (w.kind == FeedWrite.Kind.ARCHIVE) {
        archives.add(w);
      } else if (w.kind == FeedWrite.Kind.RETRACT) {
        retractions.add(w);
      } else if (w.created) {
        inserts.add(w);
      } else if (w.changed != 0) {
        updatesByColumns.computeIfAbsent(w.changed, c -> new ArrayList<>()).add(w);
      }
    }
    try {
      for (Map.Entry<Integer, List<FeedWrite>> group : updatesByColumns.entrySet()) {
        // A row that is not there (e.g. a restored database) is written whole.
        inserts.addAll(update(group.getKey(), group.getValue()));
      }
      insert(inserts);
      retract(retractions);
      hot.commit();
    } catch (SQLException e) {
      hot.rollback();
      throw e;
    }
    move(archives);
    return null;
  }

  private List<FeedWrite> update(int columns, List<FeedWrite> writes) throws SQLException {
    List<String> set = new ArrayList<>();
    if ((columns & FeedEntry.FIRST_AT) != 0) {
      set.add("first_at = ?");
    }
    if ((columns & FeedEntry.LAST_AT) != 0) {
      set.add("last_at = ?");
    }
    if ((columns & FeedEntry.EVENT_COUNT) != 0) {
      set.add("event_count = ?");
    }
    if ((columns & FeedEntry.RECENT_DETAILS) != 0) {
      set.add("recent_details = ?::jsonb");
    }
    String sql =
        "UPDATE feed_entry SET "
            + String.join(", ", set)
            + " WHERE workspace_id = ? AND entry_id = ?";
    List<FeedWrite> missing = new ArrayList<>();
    try (PreparedStatement ps = hot.prepareStatement(sql)) {
      for (FeedWrite w : writes) {
        FeedEntry e = w.entry;
        int i = 1;
        if ((columns & FeedEntry.FIRST_AT) != 0) {
          Timestamps.set(ps, i++, e.firstAt);
        }
        if ((columns & FeedEntry.LAST_AT) != 0) {
          Timestamps.set(ps, i++, e.lastAt);
        }
        if ((columns & FeedEntry.EVENT_COUNT) != 0) {
          ps.setInt(i++, e.eventCount);
        }
        if ((columns & FeedEntry.RECENT_DETAILS) != 0) {
          ps.setString(i++, e.recentDetailsJson());
        }
        ps.setString(i++, e.workspaceId);
        ps.setString(i, e.entryId);
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 0) {
          missing.add(writes.get(i));
        } else {
          rowsWritten++;
        }
      }
    }
    return missing;
  }

  private void insert(List<FeedWrite> writes) throws SQLException {
    if (writes.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = hot.prepareStatement(INSERT)) {
      for (FeedWrite w : writes) {
        bindRow(ps, w.entry);
        ps.addBatch();
      }
      for (int count : ps.executeBatch()) {
        rowsWritten += Math.max(0, count);
      }
    }
  }

  private void retract(List<FeedWrite> retractions) throws SQLException {
    if (retractions.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = hot.prepareStatement(DELETE_HOT)) {
      for (FeedWrite w : retractions) {
        ps.setString(1, w.entry.workspaceId);
        ps.setString(2, w.entry.entryId);
        ps.addBatch();
      }
      for (int count : ps.executeBatch()) {
        rowsWritten += Math.max(0, count);
      }
    }
  }

  /**
   * Copy to the archive, then delete from the hot table; both idempotent, so a replay repairs a
   * half-done move.
   */
  private void move(List<FeedWrite> archives) throws SQLException {
    if (archives.isEmpty()) {
      return;
    }
    try {
      try (PreparedStatement ps = archive.prepareStatement(ARCHIVE)) {
        for (FeedWrite w : archives) {
          bindRow(ps, w.entry);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      if (!sameDatabase) {
        archive.commit();
      }
      try (PreparedStatement ps = hot.prepareStatement(DELETE_HOT)) {
        for (FeedWrite w : archives) {
          ps.setString(1, w.entry.workspaceId);
          ps.setString(2, w.entry.entryId);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      hot.commit();
    } catch (SQLException e) {
      hot.rollback();
      if (!sameDatabase) {
        archive.rollback();
      }
      throw e;
    }
  }

  private static void bindRow(PreparedStatement ps, FeedEntry e) throws SQLException {
    ps.setString(1, e.workspaceId);
    ps.setString(2, e.entryId);
    ps.setString(3, e.actorId);
    ps.setString(4, e.elementType);
    ps.setString(5, e.elementId);
    ps.setString(6, e.action);
    Timestamps.set(ps, 7, e.firstAt);
    Timestamps.set(ps, 8, e.lastAt);
    ps.setInt(9, e.eventCount);
    ps.setString(10, e.recentDetailsJson());
  }

  @Override
  public void close() throws SQLException {
    try {
      hot.close();
    } finally {
      if (!sameDatabase) {
        archive.close();
      }
    }
  }
}
