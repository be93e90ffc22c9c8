package dev.weir.connector.elasticsearch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What to do after a bulk response, item by item: done, stale (the index holds a newer version:
 * fine under external versioning), retry (429, 5xx), refused (400: this document's value does not
 * fit the mapping; retrying cannot help, so it is set aside with the reason, or fails the job), or
 * fail (anything else, e.g. a write-blocked index, which an operator can fix).
 */
final class BulkOutcome {

  /** One item of a bulk response. */
  record Item(int status, String errorType, String errorReason) {}

  /** An operation the cluster refused, with its words. */
  record Refusal(DocumentOperation operation, String reason) {}

  final List<DocumentOperation> retry = new ArrayList<>();
  final List<Refusal> refused = new ArrayList<>();
  int succeeded;
  int stale;
  String failure;

  /**
   * The outcome of {@code operations} from the items of their bulk, in order ({@link
   * DocumentOperation#bulkItems()} each: a move's delete at its old routing follows its index, and
   * counts only when it must be retried or fails).
   */
  static BulkOutcome of(List<DocumentOperation> operations, List<Item> items) {
    int expected = operations.stream().mapToInt(DocumentOperation::bulkItems).sum();
    if (items.size() < expected) {
      throw new IllegalStateException(
          "bulk response has " + items.size() + " items for " + expected + " operations");
    }
    BulkOutcome outcome = new BulkOutcome();
    int next = 0;
    for (DocumentOperation op : operations) {
      Item item = items.get(next++);
      if (item.status() == 404
          && op.requiresAlias()
          && "index_not_found_exception".equals(item.errorType())) {
        // Before "already gone" below: a delete's 404 can also mean that the alias is gone.
        if (outcome.failure == null) {
          outcome.failure = aliasMissing(op);
        }
      } else if (item.status() >= 200 && item.status() < 300) {
        outcome.succeeded++;
      } else if (item.status() == 409) {
        outcome.stale++;
      } else if (item.status() == 404 && op.isDelete()) {
        outcome.succeeded++; // already gone
      } else if (item.status() == 429 || item.status() >= 500) {
        outcome.retry.add(op);
      } else if (refusesThisDocument(op, item)) {
        outcome.refused.add(new Refusal(op, refused(op, item)));
      } else if (outcome.failure == null) {
        outcome.failure = refused(op, item);
      }
      if (op.moved()) {
        // The delete at the old routing: gone, or (409) the same shard holds the new version.
        Item old = items.get(next++);
        boolean done = old.status() < 300 || old.status() == 404 || old.status() == 409;
        if (!done && (old.status() == 429 || old.status() >= 500)) {
          if (!outcome.retry.contains(op)) {
            outcome.retry.add(op);
          }
        } else if (!done && outcome.failure == null) {
          outcome.failure = refused(op, old);
        }
      }
    }
    return outcome;
  }

  /**
   * A 400 for an index operation is about the document (a value its mapping cannot parse), except a
   * missing ingest pipeline: that is the cluster's, an operator puts it back, and the document must
   * wait for it rather than be set aside.
   */
  private static boolean refusesThisDocument(DocumentOperation op, Item item) {
    return item.status() == 400
        && !op.isDelete()
        && !(item.errorReason() != null
            && item.errorReason().startsWith("pipeline with id [")
            && item.errorReason().endsWith("] does not exist"));
  }

  static String refused(DocumentOperation op, Item item) {
    return "The search cluster rejected "
        + op
        + " with status "
        + item.status()
        + ": "
        + item.errorType()
        + ": "
        + item.errorReason();
  }

  /** What to say when the alias a job writes through has no index behind it. */
  static String aliasMissing(DocumentOperation op) {
    return "The alias "
        + op.index()
        + " has no index behind it (was the index deleted?): "
        + op
        + " refused, and no index was created in its place (writes require the alias). Nothing"
        + " is lost, the copy holds every document. To recover, either start the job again (its"
        + " start creates the alias's first index from the mapping) and refill that index from"
        + " the copy with `weir backfill --target <that index>`, or, with the job retrying,"
        + " rebuild one behind the alias with `weir backfill --target <new index> --swap-alias`."
        + " See docs/search-index.md, \"The index deleted under the job\".";
  }

  Optional<String> failure() {
    return Optional.ofNullable(failure);
  }
}
