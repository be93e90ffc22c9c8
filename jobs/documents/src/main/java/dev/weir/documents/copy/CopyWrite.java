package dev.weir.documents.copy;

import dev.weir.documents.DocumentChange;
import java.util.List;
import java.util.Map;

/**
 * What a batch's write to the copy did.
 *
 * @param held per document id, what the copy holds now: the version to pass on; no entry when the
 *     copy holds a newer document or refused this one (nothing to pass on)
 * @param refused the documents PostgreSQL refused, each with why; the batch's others are written
 */
public record CopyWrite(Map<String, Long> held, List<Refusal> refused) {

  /**
   * A document the copy did not take: the copy and the index keep its previous version.
   *
   * @param document the document, as JSON (its fields and content hash); null for a deletion
   * @param reason PostgreSQL's message, the document id, the copy table, the column and its types
   */
  public record Refusal(DocumentChange change, byte[] document, String reason) {}
}
