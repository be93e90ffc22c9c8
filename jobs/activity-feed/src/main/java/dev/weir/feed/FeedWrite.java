package dev.weir.feed;

/**
 * What the collator asks the store to do with one entry: write its changed columns (creating the
 * row if it is new), or move it to the archive.
 */
public class FeedWrite {

  public enum Kind {
    UPSERT,
    ARCHIVE
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

  static FeedWrite upsert(FeedEntry entry, boolean created) {
    FeedWrite w = new FeedWrite();
    w.kind = Kind.UPSERT;
    w.entry = entry.copy();
    w.changed = entry.changed;
    w.created = created;
    return w;
  }

  static FeedWrite archive(FeedEntry entry) {
    FeedWrite w = new FeedWrite();
    w.kind = Kind.ARCHIVE;
    w.entry = entry.copy();
    return w;
  }

  /** The later write of the same entry, folded into this one (the store coalesces by entry). */
  FeedWrite then(FeedWrite later) {
    if (later.kind == Kind.ARCHIVE) {
      return later;
    }
    FeedWrite merged = upsert(later.entry, created || later.created);
    merged.changed = changed | later.changed;
    return merged;
  }

  @Override
  public String toString() {
    return kind + (created ? " (new) " : " ") + entry + " changed=" + changed;
  }
}
