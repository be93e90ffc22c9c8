package dev.weir.connector.elasticsearch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What to do after a bulk response, item by item: done, stale (the index holds a newer version:
 * fine under external versioning), retry (429, 5xx), or fail (anything else, e.g. a mapping error:
 * retrying cannot help and dropping would lose data silently).
 */
final class BulkOutcome {

  /** One item of a bulk response. */
  record Item(int status, String errorType, String errorReason) {}

  final List<DocumentOperation> retry = new ArrayList<>();
  int succeeded;
  int stale;
  String failure;

  static BulkOutcome of(List<DocumentOperation> operations, List<Item> items) {
    if (operations.size() != items.size()) {
      throw new IllegalStateException(
          "bulk response has " + items.size() + " items for " + operations.size() + " operations");
    }
    BulkOutcome outcome = new BulkOutcome();
    for (int i = 0; i < items.size(); i++) {
      Item item = items.get(i);
      DocumentOperation op = operations.get(i);
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
      } else if (outcome.failure == null) {
        outcome.failure =
            "Elasticsearch rejected "
                + op
                + " with status "
                + item.status()
                + ": "
                + item.errorType()
                + ": "
                + item.errorReason();
      }
    }
    return outcome;
  }

  /** What to say when the alias a job writes through has no index behind it. */
  static String aliasMissing(DocumentOperation op) {
    return "Elasticsearch alias "
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
