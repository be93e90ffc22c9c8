package dev.weir.identity;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One row of the identity table. Setters record which columns really changed, so a store writes
 * only those (never a whole-row upsert): writers of different columns never overwrite each other.
 */
public final class IdentityRecord {

  /** The columns after the key, as named in both stores. */
  public enum Column {
    CANONICAL_ID("canonical_id"),
    EARLIEST_SEEN("earliest_seen"),
    IDENTIFY_SEEN("identify_seen"),
    ALIAS_SEEN("alias_seen"),
    PEOPLE_UPDATE_SEEN("people_update_seen"),
    UPDATED_AT("updated_at");

    public final String sql;

    Column(String sql) {
      this.sql = sql;
    }

    int bit() {
      return 1 << ordinal();
    }
  }

  private final String projectId;
  private final String distinctId;
  private final boolean stored;
  private String canonicalId;
  private Long earliestSeen;
  private boolean identifySeen;
  private boolean aliasSeen;
  private boolean peopleUpdateSeen;
  private Long updatedAt;
  private int changed;

  private IdentityRecord(String projectId, String distinctId, boolean stored) {
    this.projectId = projectId;
    this.distinctId = distinctId;
    this.stored = stored;
  }

  /** A row read from a store: nothing changed yet. */
  public static IdentityRecord stored(
      String projectId,
      String distinctId,
      String canonicalId,
      Long earliestSeen,
      boolean identifySeen,
      boolean aliasSeen,
      boolean peopleUpdateSeen,
      Long updatedAt) {
    IdentityRecord r = new IdentityRecord(projectId, distinctId, true);
    r.canonicalId = canonicalId;
    r.earliestSeen = earliestSeen;
    r.identifySeen = identifySeen;
    r.aliasSeen = aliasSeen;
    r.peopleUpdateSeen = peopleUpdateSeen;
    r.updatedAt = updatedAt;
    return r;
  }

  /**
   * A distinct id the store does not have: it maps to itself. Written as a new row (all columns) if
   * anything is set on it; if the row appeared meanwhile, only the changed columns are written.
   */
  public static IdentityRecord unseen(String projectId, String distinctId) {
    IdentityRecord r = new IdentityRecord(projectId, distinctId, false);
    r.canonicalId = distinctId;
    return r;
  }

  public IdentityKey key() {
    return new IdentityKey(projectId, distinctId);
  }

  public String projectId() {
    return projectId;
  }

  public String distinctId() {
    return distinctId;
  }

  /** Whether the row was read from the store (false: it is new). */
  public boolean isStored() {
    return stored;
  }

  public String canonicalId() {
    return canonicalId;
  }

  public Long earliestSeen() {
    return earliestSeen;
  }

  public boolean identifySeen() {
    return identifySeen;
  }

  public boolean aliasSeen() {
    return aliasSeen;
  }

  public boolean peopleUpdateSeen() {
    return peopleUpdateSeen;
  }

  public Long updatedAt() {
    return updatedAt;
  }

  public void setCanonicalId(String value) {
    if (!Objects.equals(canonicalId, value)) {
      canonicalId = value;
      changed |= Column.CANONICAL_ID.bit();
    }
  }

  /**
   * Lowers earliest_seen to {@code at} if it is earlier (or unset); a later time changes nothing.
   */
  public void lowerEarliestSeen(long at) {
    if (earliestSeen == null || at < earliestSeen) {
      earliestSeen = at;
      changed |= Column.EARLIEST_SEEN.bit();
    }
  }

  public void setIdentifySeen(boolean value) {
    if (identifySeen != value) {
      identifySeen = value;
      changed |= Column.IDENTIFY_SEEN.bit();
    }
  }

  public void setAliasSeen(boolean value) {
    if (aliasSeen != value) {
      aliasSeen = value;
      changed |= Column.ALIAS_SEEN.bit();
    }
  }

  public void setPeopleUpdateSeen(boolean value) {
    if (peopleUpdateSeen != value) {
      peopleUpdateSeen = value;
      changed |= Column.PEOPLE_UPDATE_SEEN.bit();
    }
  }

  /** Stamps updated_at, only if the mapping itself changed (call after the other setters). */
  public void touchIfChanged(long now) {
    if ((changed & ~Column.EARLIEST_SEEN.bit()) != 0) {
      updatedAt = now;
      changed |= Column.UPDATED_AT.bit();
    }
  }

  public boolean isChanged() {
    return changed != 0;
  }

  public boolean isChanged(Column column) {
    return (changed & column.bit()) != 0;
  }

  /** The changed columns, in table order. */
  public List<Column> changedColumns() {
    List<Column> columns = new ArrayList<>();
    for (Column c : Column.values()) {
      if (isChanged(c)) {
        columns.add(c);
      }
    }
    return columns;
  }

  /** A bitmask of the changed columns: writes with the same mask share one statement. */
  public int changedMask() {
    return changed;
  }

  /** Folds a later change of the same row into this one (the sink batches by key). */
  public IdentityRecord then(IdentityRecord later) {
    IdentityRecord merged = new IdentityRecord(projectId, distinctId, stored && later.stored);
    merged.canonicalId = later.canonicalId;
    merged.earliestSeen =
        earliestSeen == null
            ? later.earliestSeen
            : later.earliestSeen == null
                ? earliestSeen
                : Math.min(earliestSeen, later.earliestSeen);
    merged.identifySeen = later.identifySeen;
    merged.aliasSeen = later.aliasSeen;
    merged.peopleUpdateSeen = later.peopleUpdateSeen;
    merged.updatedAt = later.updatedAt;
    merged.changed = changed | later.changed;
    return merged;
  }

  @Override
  public String toString() {
    return projectId
        + "/"
        + distinctId
        + "→"
        + canonicalId
        + (stored ? "" : " (new)")
        + " changed="
        + changedColumns();
  }
}
