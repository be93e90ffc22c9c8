package dev.weir.identity;

import dev.weir.common.store.BatchStore;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The identity table, in PostgreSQL or Cloud Spanner. Writes name only the changed columns of each
 * record ({@link IdentityRecord#changedColumns()}) of a row that exists. A row that is missing
 * (new, or deleted behind the job) is created, never a failed write: PostgreSQL inserts it whole,
 * Spanner with the changed columns (the others at their defaults).
 */
public interface IdentityStore extends BatchStore<IdentityRecord, Void> {

  /** The stored rows among {@code keys} (absent keys are not in the result). One round trip. */
  Map<IdentityKey, IdentityRecord> get(Collection<IdentityKey> keys) throws Exception;

  /** Up to {@code limit} rows of a project whose canonical id is {@code canonicalId}. */
  List<IdentityRecord> byCanonical(String projectId, String canonicalId, int limit)
      throws Exception;

  /** Writes the changed records together (one transaction). */
  @Override
  Void write(Collection<IdentityRecord> records) throws Exception;

  /** Statements (PostgreSQL) or mutations (Spanner) sent so far; lookups included. */
  long statements();

  /** Columns written so far, over all rows. */
  long columnsWritten();
}
