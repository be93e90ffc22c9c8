package dev.weir.bench.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.schema.Json;
import dev.weir.stack.LocalStack;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
   * Timed passes of each raw bulk: one pass on a shared machine is noisy (the same raw bulk ran at
   * rates far apart in two runs while weir's side did not move), so the ratios take the median
   * pass, as {@code bench load} does for the services' limits.
   */
  public static final int PASSES = 3;

  /**
   * The same documents bulk-loaded by this plain client, one loader per core, into an index made
   * from {@code mapping} (the job's): {@link #PASSES} passes, each into a fresh index on an idle
   * node, each timed until every document is searchable; the median pass ({@link
   * IndexLoad#median}), with every pass's rate.
   */
  public static IndexLoad timedPasses(
      LocalStack stack,
      SearchCluster es,
      String mapping,
      List<IndexedDocument> documents,
      String index)
      throws Exception {
    return timedPasses(stack, es, mapping, documents, index, PASSES);
  }

  /** The same, {@code passCount} times: one pass is that pass itself, without a median. */
  public static IndexLoad timedPasses(
      LocalStack stack,
      SearchCluster es,
      String mapping,
      List<IndexedDocument> documents,
      String index,
      int passCount)
      throws Exception {
    int loaders = Runtime.getRuntime().availableProcessors();
    List<DocumentOperation> ops = new ArrayList<>();
    for (IndexedDocument d : documents) {
      ops.add(DocumentOperation.index(index, d.id(), d.version(), d.source()));
    }
    List<IndexLoad> passes = new ArrayList<>();
    for (int pass = 0; pass < passCount; pass++) {
      createIndex(es, index, mapping); // the previous pass's index deleted
      BenchEnvironment.awaitMergesDone(es);
      CpuUse cpu;
      IndexLoad raw;
      try (IndexProgress progress = IndexProgress.watch(es, index)) {
        cpu = CpuUse.start(stack);
        long start = System.nanoTime();
        // Sent in the background: IndexLoad.timed meters the CPU after warm-up while the load runs.
        CompletableFuture<Void> sending =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    send(es, index, ops, loaders);
                  } catch (Exception e) {
                    throw new CompletionException(e);
                  }
                });
        // Timed until searchable, as weir is.
        try {
          raw =
              IndexLoad.timed(
                  "raw bulk of the same documents ("
                      + loaders
                      + (loaders == 1 ? " loader)" : " loaders)"),
                  documents.size(),
                  start,
                  progress,
                  cpu,
                  es,
                  index);
        } finally {
          sending.join(); // a failed bulk is the reason the count never came
        }
      }
      passes.add(raw.settle(es, index, cpu));
    }
    return passes.size() == 1 ? passes.get(0) : IndexLoad.median(passes);
  }

  /**
   * A fresh index (an old one of that name deleted) from {@code mapping}, a create-index body: the
   * job's own ({@link DocumentIndex#mapping()}), so both sides index the same fields.
   */
  public static void createIndex(SearchCluster es, String index, String mapping) throws Exception {
    es.deleteIndex(index);
    es.createIndex(index, Json.mapper().readTree(mapping));
  }

  /** Bulk requests of {@link #BATCH} documents, {@code loaders} at a time, into an index. */
  public static void send(
      SearchCluster es, String index, List<DocumentOperation> documents, int loaders)
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
  public static void bulk(SearchCluster es, String index, List<DocumentOperation> batch)
      throws Exception {
    send(es, body(index, batch));
  }

  /** The body of a bulk request of index operations into {@code index} (NDJSON). */
  public static byte[] body(String index, List<DocumentOperation> batch) throws IOException {
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
    return body.toByteArray();
  }

  /** One bulk request of a ready body ({@link #body}); fails on any refused item. */
  public static void send(SearchCluster es, byte[] body) throws IOException {
    JsonNode response = es.post("/_bulk?filter_path=errors,items.*.error", body);
    if (response.path("errors").asBoolean()) {
      throw new IllegalStateException("raw bulk failed: " + response);
    }
  }
}
