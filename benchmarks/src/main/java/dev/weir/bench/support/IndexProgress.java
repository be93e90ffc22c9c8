package dev.weir.bench.support;

import dev.weir.connector.elasticsearch.SearchCluster;

/**
 * A load's progress in one index, polled every 100 ms: the index operations Elasticsearch has
 * applied since the load began ({@link #applied}: its indexing stats, which count each operation as
 * it is done) and the documents a search counts ({@link #searchable}: only after a refresh). Under
 * a bulk load a refresh takes seconds, so the searchable count moves in steps that long; a rate
 * over a stretch of a few of them measures where they fell, while the operations applied move with
 * the load itself. The same for both sides of a comparison.
 */
public final class IndexProgress implements AutoCloseable {

  final CountTimeline applied;
  final CountTimeline searchable;

  private IndexProgress(CountTimeline applied, CountTimeline searchable) {
    this.applied = applied;
    this.searchable = searchable;
  }

  /**
   * Starts polling {@code index} (an index or an alias; it may not exist yet): operations are
   * counted from now, so that an index holding documents already (an overwrite) counts only the
   * load's.
   */
  public static IndexProgress watch(SearchCluster es, String index) {
    long before;
    try {
      before = operations(es, index);
    } catch (Exception notThereYet) {
      before = 0;
    }
    long base = before;
    return new IndexProgress(
        new CountTimeline(() -> operations(es, index) - base),
        new CountTimeline(() -> BenchEnvironment.count(es, index)));
  }

  /** Index operations the primaries applied, accepted or not (a stale version among them). */
  private static long operations(SearchCluster es, String index) throws Exception {
    return IndexWork.of(es.get("/" + index + "/_stats/indexing").path("_all").path("primaries"))
        .indexed();
  }

  @Override
  public void close() {
    applied.close();
    searchable.close();
  }
}
