package dev.weir.backfill;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Some documents of the copy: a range of ids in the copy's order of them ({@code from <= id <
 * until}, a null bound being no bound), or, for a catch-up pass, the listed {@code ids}. Ids are
 * strings whatever the key (text, uuid, a composite key's JSON array); each {@link CopySource}
 * knows how its ids sort.
 */
record Split(String from, String until, List<String> ids) implements Serializable {

  Split(String from, String until) {
    this(from, until, null);
  }

  /** {@code ids} in splits of at most {@code size}. */
  static List<Split> of(List<String> ids, int size) {
    List<Split> splits = new ArrayList<>();
    for (int i = 0; i < ids.size(); i += size) {
      splits.add(
          new Split(null, null, List.copyOf(ids.subList(i, Math.min(ids.size(), i + size)))));
    }
    return splits;
  }

  /** Whether this split lists its ids rather than being a range. */
  boolean listed() {
    return ids != null;
  }

  /**
   * The splits between {@code starts} (the first id of each run of documents, in order): the first
   * split has no lower bound and the last no upper one, so an id added below the first start or
   * above the last while the pass runs is in a split too. No start: one split, the whole copy.
   */
  static List<Split> between(List<String> starts) {
    List<Split> splits = new ArrayList<>();
    if (starts.isEmpty()) {
      splits.add(new Split(null, null));
      return splits;
    }
    for (int i = 0; i < starts.size(); i++) {
      splits.add(
          new Split(
              i == 0 ? null : starts.get(i), i + 1 < starts.size() ? starts.get(i + 1) : null));
    }
    return splits;
  }

  @Override
  public String toString() {
    if (listed()) {
      return ids.size() + " listed ids";
    }
    return "[" + (from == null ? "" : from) + ", " + (until == null ? "" : until) + ")";
  }
}
