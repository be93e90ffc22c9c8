package dev.weir.feed;

/**
 * What the collator asks the store to do with one entry: write its changed columns (creating the
 * row if it is new), move it to the archive, or retract a provisional entry that the ordered input
 * did not confirm (see {@link Collator}).
 */
public class FeedWrite {

  public enum Kind {
    UPSERT,
    ARCHIVE,
    RETRACT
  }

  public Kind kind;
  public FeedEntry entry;

  /**
   * For UPSERT: bitmask of changed columns ({@link FeedEntry#FIRST_AT} …); the row's creation
   * writes all.
   */
  public int changed;

  public boolean created;

  public FeedWrite() {}

  static FeedWrite upsert(FeedEntry entry, int changed, boolean created) {
    FeedWrite w = new FeedWrite();
    w.kind = Kind.UPSERT;
    w.entry = entry.copy();
    w.changed = created ? FeedEntry.ALL_CHANGING : changed;
    w.created = created;
    return w;
  }

  static FeedWrite retract(String workspaceId, String entryId) {
    FeedWrite w = new FeedWrite();
    w.kind = Kind.RETRACT;
    w.entry = FeedEntry.keyOnly(workspaceId, entryId);
    return w;
  }

  static FeedWrite archive(FeedEntry entry) {
    FeedWrite w = new FeedWrite();
    w.kind = Kind.ARCHIVE;
    w.entry = entry.copy();
    return w;
  }

  /**
   * The later write of the same entry, folded into this one (the store coalesces by entry); null
   * when nothing is left to do: a row created and retracted before it was written.
   */
  FeedWrite then(FeedWrite later) {
    if (later.kind == Kind.ARCHIVE) {
      return later;
    }
    if (later.kind == Kind.RETRACT) {
      return kind == Kind.UPSERT && created ? null : later;
    }
    if (kind == Kind.RETRACT) {
      // Retracted, then shown again: the row must be written whole.
      return upsert(later.entry, FeedEntry.ALL_CHANGING, true);
    }
    return upsert(later.entry, changed | later.changed, created || later.created);
  }

  @Override
  public String toString() {
    return kind + (created ? " (new) " : " ") + entry + " changed=" + changed;
  }
}
