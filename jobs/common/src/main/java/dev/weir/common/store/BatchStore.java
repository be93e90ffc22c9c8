package dev.weir.common.store;

import java.io.Serializable;
import java.util.Collection;

/**
 * A store weir writes in batches: the feed's tables, the identity table, a document's copy. Its
 * statements are idempotent (delivery is at-least-once), and it is written on one thread, a batch
 * at a time.
 *
 * @param <T> a write; a batch holds at most one write per key
 * @param <R> what a batch's write says back to a caller that goes on with it (the copy's versions
 *     and the rows it refused), or {@link Void}
 */
public interface BatchStore<T, R> extends AutoCloseable {

  /** Writes one batch. */
  R write(Collection<T> batch) throws Exception;

  /** Rows written so far (for the weirRowsWritten metric). */
  long rowsWritten();

  /** Opens a store in the task, where credentials are read (they never travel in the job graph). */
  @FunctionalInterface
  interface Opener<T, R> extends Serializable {
    BatchStore<T, R> open() throws Exception;
  }
}
