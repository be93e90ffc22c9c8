package dev.weir.backfill;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A range of document ids of the copy, in the copy's order of them: {@code from <= id < until}, a
 * null bound being no bound. Ids are strings whatever the key (text, uuid, a composite key's JSON
 * array); each {@link CopySource} knows how its ids sort.
 */
record Split(String from, String until) implements Serializable {

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
    return "[" + (from == null ? "" : from) + ", " + (until == null ? "" : until) + ")";
  }
}
