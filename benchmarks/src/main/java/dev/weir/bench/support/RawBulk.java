package dev.weir.bench.support;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.util.BinaryData;
import co.elastic.clients.util.ContentType;
import dev.weir.search.index.DocumentIndex;
import dev.weir.sink.elasticsearch.DocumentOperation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The limit a job that indexes documents is measured against: the same documents bulk-loaded the
 * way a plain client does it, with nothing else to do (already in memory, nothing read, nothing
 * compared): batches of {@value #BATCH} with external versions, {@code loaders} sequential loaders
 * side by side.
 */
public final class RawBulk {

  public static final int BATCH = 1000;

  private RawBulk() {}

  /**
   * Loads {@code documents} (their ids, versions and sources) into a fresh {@code index} made from
   * {@code mapping}; returns the seconds from the first request until the last answered.
   */
  public static double load(
      ElasticsearchClient es,
      String index,
      String mapping,
      List<DocumentOperation> documents,
      int loaders)
      throws Exception {
    createIndex(es, index, mapping);
    long start = System.nanoTime();
    send(es, index, documents, loaders);
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * A fresh index (an old one of that name deleted) from {@code mapping}, a create-index body: the
   * job's own ({@link DocumentIndex#mapping()}), so both sides index the same fields.
   */
  public static void createIndex(ElasticsearchClient es, String index, String mapping)
      throws Exception {
    es.indices().delete(d -> d.index(index).ignoreUnavailable(true));
    DocumentIndex.create(es, index, mapping);
  }

  /** Bulk requests of {@link #BATCH} documents, {@code loaders} at a time, into an index. */
  public static void send(
      ElasticsearchClient es, String index, List<DocumentOperation> documents, int loaders)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(loaders);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int l = 0; l < loaders; l++) {
        int loader = l;
        running.add(
            pool.submit(
                (Callable<Void>)
                    () -> {
                      for (int from = loader * BATCH;
                          from < documents.size();
                          from += loaders * BATCH) {
                        bulk(
                            es,
                            index,
                            documents.subList(from, Math.min(from + BATCH, documents.size())));
                      }
                      return null;
                    }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static void bulk(ElasticsearchClient es, String index, List<DocumentOperation> batch)
      throws Exception {
    List<BulkOperation> ops = new ArrayList<>();
    for (DocumentOperation d : batch) {
      ops.add(
          BulkOperation.of(
              b ->
                  b.index(
                      i ->
                          i.index(index)
                              .id(d.id())
                              .version(d.version())
                              .versionType(VersionType.External)
                              .document(BinaryData.of(d.source(), ContentType.APPLICATION_JSON)))));
    }
    BulkResponse response = es.bulk(BulkRequest.of(b -> b.operations(ops)));
    if (response.errors()) {
      throw new IllegalStateException("raw bulk failed: " + response);
    }
  }
}
