package dev.weir.search.join;

import dev.weir.documents.DocumentChange;

/**
 * Stamps order versions of source rows, and document versions are made of them.
 *
 * <p>A row's stamp is {@code epoch << 48 | lsn}: the change's log sequence number within an epoch.
 * Within one PostgreSQL cluster the LSN orders every change. A snapshot read of a row that was
 * already known (a re-snapshot after a lost replication slot, or a capture from a new cluster,
 * whose LSNs start lower) starts a new epoch for that row, as does a raised {@code
 * search.source-epoch}: so a later change is never taken for an old one. Each row's epoch is kept
 * by the {@link RowTracker}, which reads the row's changes in their order in Kafka, so a replay
 * makes the same stamps.
 *
 * <p>A document's version is {@code max(stamps of its rows and of the changes that left it) <<
 * RAISE_BITS}, raised to one more than the last version written when that would not be higher (a
 * document whose rows arrive in pieces, or a change of one table overtaken by a later one of
 * another): versions of one document only grow, and a replay ends on the version the live run ended
 * on unless the live run had to raise it. A job restarted from a checkpoint may have raised a
 * document further before the restart than its replay does: the copy settles those ({@link
 * DocumentChange#copyMayBeAhead}).
 */
public final class Stamps {

  static final int LSN_BITS = 48;
  static final long MAX_LSN = (1L << LSN_BITS) - 1;
  static final int MAX_EPOCH = 127;

  private Stamps() {}

  public static long of(long epoch, long lsn) {
    if (lsn > MAX_LSN) {
      throw new IllegalArgumentException(
          "LSN " + lsn + " is beyond 2^48, the largest weir's document versions take");
    }
    if (epoch > MAX_EPOCH) {
      throw new IllegalArgumentException("epoch " + epoch + " is beyond " + MAX_EPOCH);
    }
    return (epoch << LSN_BITS) | Math.max(0, lsn);
  }

  public static long epoch(long stamp) {
    return stamp >>> LSN_BITS;
  }

  public static long lsn(long stamp) {
    return stamp & MAX_LSN;
  }

  /** The version of a document whose stamps' maximum is {@code stamp}, after {@code last}. */
  public static long version(long stamp, long last) {
    return Math.max(stamp << DocumentChange.RAISE_BITS, last + 1);
  }
}
