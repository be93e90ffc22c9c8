package dev.weir.search.join;

import dev.weir.common.types.Utf8StringTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/** A row as the {@link RowTracker} accepted it, for the node's assembler. */
public class NodeRow {
  public int node;
  public String key;

  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String values; // JSON object; null when deleted

  public String[] unavailable;
  public boolean deleted;

  /** Orders versions of the row and of the documents it is part of ({@link Stamps}). */
  public long stamp;

  /** Its event time ({@link SourceRow#time}). */
  public long time = Long.MIN_VALUE;

  public NodeRow() {}

  public String stateKey() {
    return node + "/" + key;
  }

  @Override
  public String toString() {
    return stateKey() + (deleted ? " deleted" : " " + values) + " @" + stamp;
  }
}
