package dev.weir.connector.elasticsearch;

import java.io.Serializable;

/**
 * Where the sink sets aside a document the cluster refuses for a reason no retry can fix (a value
 * its mapping cannot parse: status 400), so that one document does not stop the job. Without one,
 * such a refusal fails the job, as a backfill wants (a rebuild missing documents must not be
 * swapped in).
 */
public interface RefusedDocuments extends Serializable {

  /** Opens this writer's way out; called once per sink writer, closed with it. */
  Sender open() throws Exception;

  /** One sink writer's way out. */
  interface Sender extends AutoCloseable {

    /** Sets {@code operation} aside with the engine's reason (its status, type and reason). */
    void refused(DocumentOperation operation, String reason) throws Exception;

    /** Returns once everything set aside so far is durable; throws if any of it was not. */
    void flush() throws Exception;
  }
}
