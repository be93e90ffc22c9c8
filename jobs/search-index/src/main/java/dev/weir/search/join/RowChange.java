package dev.weir.search.join;

import dev.weir.common.types.Utf8StringTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A change of one source row, decoded and normalized ({@link Values}), addressed to one node that
 * reads its table: what the {@link RowTracker} receives.
 */
public class RowChange {
  /** The node it is for ({@code DocumentPlan.Node#id}). */
  public int node;

  /** The row's key ({@link Values#key}). */
  public String key;

  /** The row's values the node needs, a JSON object; null for a delete. */
  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String values;

  /** Columns the event marked as unavailable (an unchanged TOASTed value), or null. */
  public String[] unavailable;

  public boolean deleted;

  /** A snapshot read ({@code op = r}) rather than a change. */
  public boolean snapshot;

  /**
   * A TRUNCATE of the node's table (no key, no values): every row of it written before {@link #lsn}
   * is gone. Broadcast to every {@link RowTracker}, which deletes those rows.
   */
  public boolean truncated;

  /** The change's log sequence number, -1 if the event has none. */
  public long lsn = -1;

  /** Its event time ({@link SourceRow#time}). */
  public long time = Long.MIN_VALUE;

  public RowChange() {}

  /** The key the tracker and the assembler hold this row under. */
  public String stateKey() {
    return node + "/" + key;
  }

  @Override
  public String toString() {
    String what = truncated ? " truncated" : deleted ? " deleted" : snapshot ? " read" : " changed";
    return stateKey() + what + " @" + lsn;
  }
}
