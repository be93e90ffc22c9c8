package dev.weir.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.schema.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
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
final class RawBulk {

  static final int BATCH = 1000;

  private RawBulk() {}

  /**
   * Loads {@code documents} (their ids, versions and sources) into a fresh {@code index} made from
   * {@code mapping}; returns the seconds from the first request until the last answered.
   */
  static double load(
      SearchCluster es,
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
  static void createIndex(SearchCluster es, String index, String mapping) throws Exception {
    es.deleteIndex(index);
    es.createIndex(index, Json.mapper().readTree(mapping));
  }

  /** Bulk requests of {@link #BATCH} documents, {@code loaders} at a time, into an index. */
  static void send(SearchCluster es, String index, List<DocumentOperation> documents, int loaders)
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

  /**
   * One bulk request of index operations, with their external versions (none for {@link
   * DocumentOperation#NO_VERSION}); fails on any refused item.
   */
  static void bulk(SearchCluster es, String index, List<DocumentOperation> batch) throws Exception {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (DocumentOperation d : batch) {
      ObjectNode meta = Json.mapper().createObjectNode().put("_index", index).put("_id", d.id());
      if (d.version() != DocumentOperation.NO_VERSION) {
        meta.put("version", d.version()).put("version_type", "external");
      }
      String action = Json.mapper().createObjectNode().set("index", meta).toString();
      body.write(action.getBytes(StandardCharsets.UTF_8));
      body.write('\n');
      body.write(d.source());
      body.write('\n');
    }
    JsonNode response = es.post("/_bulk?filter_path=errors,items.*.error", body.toByteArray());
    if (response.path("errors").asBoolean()) {
      throw new IllegalStateException("raw bulk failed: " + response);
    }
  }
}
