package dev.weir.search.join;

import dev.weir.common.types.Utf8StringTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/** A change event of one source table, its values normalized ({@link Values}) and checked. */
public class SourceRow {
  /** The source's name in the plan ({@code schema.table}). */
  public String source;

  /** Every column of the event the job reads, as a JSON object (the key columns for a delete). */
  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String values;

  public String[] unavailable;
  public boolean deleted;
  public boolean snapshot;

  /** A TRUNCATE of the table: every row it held before {@link #lsn} is gone. No values. */
  public boolean truncated;

  public long lsn = -1;

  /** Its event time: the change's commit time, or its Kafka timestamp (a topic's event). */
  public long time = Long.MIN_VALUE;

  public SourceRow() {}

  @Override
  public String toString() {
    return source + (truncated ? " truncate" : deleted ? " delete " : " ") + values + " @" + lsn;
  }
}
