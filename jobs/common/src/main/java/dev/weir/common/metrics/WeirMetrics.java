package dev.weir.common.metrics;

/**
 * Names of weir's metrics, one vocabulary for every job. They are registered on Flink's metric
 * groups (operator scope), so any Flink reporter (Prometheus on Kubernetes) exports them.
 */
public final class WeirMetrics {

  /** Records that went to the DLQ. */
  public static final String DEAD_LETTERS = "weirDeadLetters";

  /** Events accepted by a job's first step. */
  public static final String EVENTS_IN = "weirEventsIn";

  /** Rows or documents written to a store. */
  public static final String ROWS_WRITTEN = "weirRowsWritten";

  /** Writes skipped because nothing changed. */
  public static final String WRITES_SKIPPED_UNCHANGED = "weirWritesSkippedUnchanged";

  /** Statements PostgreSQL cancelled on a lock or statement timeout (each retried). */
  public static final String POSTGRES_TIMEOUTS = "weirPostgresTimeouts";

  /** Events that arrived later than the allowed out-of-orderness. */
  public static final String LATE_EVENTS = "weirLateEvents";

  /**
   * TRUNCATEs of a source table captured (cdc-catalog): the indexer does not apply them (each goes
   * to its DLQ), so any count above zero means documents that hold rows the source no longer has.
   */
  public static final String TRUNCATES = "weirTruncates";

  /**
   * A capture's replication slot (cdc-catalog): WAL bytes written since the position the slot
   * confirmed, how long ago the WAL was at that position, and WAL the slot makes the server keep.
   */
  public static final String SLOT_LAG_BYTES = "weirSlotLagBytes";

  public static final String SLOT_LAG_SECONDS = "weirSlotLagSeconds";

  public static final String SLOT_RETAINED_WAL_BYTES = "weirSlotRetainedWalBytes";

  private WeirMetrics() {}
}
