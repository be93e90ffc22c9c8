package dev.weir.bench.support;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.connector.elasticsearch.SearchCluster;
import java.io.IOException;

/**
 * What Elasticsearch did for one index, from its index stats: the operations and bulk requests it
 * took and the time its threads spent indexing, refreshing and merging. The benchmark's indices are
 * fresh, so the totals are one load's. Tells which work makes Elasticsearch spend more CPU per
 * document on one side than on the other.
 *
 * @param indexed index operations, accepted or not
 * @param failed index operations that failed (a stale external version among them)
 * @param merges merges finished
 * @param queries searches, the benchmark's count polls among them
 */
public record IndexWork(
    long indexed,
    long failed,
    long bulkRequests,
    long indexMillis,
    long refreshes,
    long refreshMillis,
    long merges,
    long mergeMillis,
    long queries) {

  public static IndexWork read(SearchCluster es, String index) throws IOException {
    return of(es.get("/" + index + "/_stats").path("_all").path("total"));
  }

  /**
   * Merges running now; 0 when the engine reports none, as it does with no index at all (a fresh
   * stack, or one the tests cleaned).
   */
  static long runningMerges(JsonNode total) {
    return total.path("merges").path("current").asLong(0);
  }

  /** Stats of an index's total or primaries; those the engine left out count as zero. */
  static IndexWork of(JsonNode s) {
    JsonNode indexing = s.path("indexing");
    return new IndexWork(
        indexing.path("index_total").asLong(0),
        indexing.path("index_failed").asLong(0),
        s.path("bulk").path("total_operations").asLong(0),
        indexing.path("index_time_in_millis").asLong(0),
        s.path("refresh").path("total").asLong(0),
        s.path("refresh").path("total_time_in_millis").asLong(0),
        s.path("merges").path("total").asLong(0),
        s.path("merges").path("total_time_in_millis").asLong(0),
        s.path("search").path("query_total").asLong(0));
  }
}
