package dev.weir.bench.support;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.indices.stats.IndexStats;
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

  public static IndexWork read(ElasticsearchClient es, String index) throws IOException {
    IndexStats total = es.indices().stats(s -> s.index(index)).all().total();
    return of(total);
  }

  /**
   * Merges running now; 0 when Elasticsearch reports none, as it does with no index at all (a fresh
   * stack, or one the tests cleaned): reading that total's merges failed with a
   * NullPointerException.
   */
  static long runningMerges(IndexStats total) {
    return total == null || total.merges() == null ? 0 : total.merges().current();
  }

  /** Stats Elasticsearch left out (an index that never saw that kind of work) count as zero. */
  static IndexWork of(IndexStats s) {
    return new IndexWork(
        s.indexing() == null ? 0 : s.indexing().indexTotal(),
        s.indexing() == null ? 0 : s.indexing().indexFailed(),
        s.bulk() == null ? 0 : s.bulk().totalOperations(),
        s.indexing() == null ? 0 : s.indexing().indexTimeInMillis(),
        s.refresh() == null ? 0 : s.refresh().total(),
        s.refresh() == null ? 0 : s.refresh().totalTimeInMillis(),
        s.merges() == null ? 0 : s.merges().total(),
        s.merges() == null ? 0 : s.merges().totalTimeInMillis(),
        s.search() == null ? 0 : s.search().queryTotal());
  }
}
