package dev.weir.bench.support;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.util.BinaryData;
import co.elastic.clients.util.ContentType;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.stack.LocalStack;
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
      ElasticsearchClient es,
      String mapping,
      List<IndexedDocument> documents,
      String index)
      throws Exception {
    return timedPasses(stack, es, mapping, documents, index, PASSES);
  }

  /** The same, {@code passCount} times: one pass is that pass itself, without a median. */
  public static IndexLoad timedPasses(
      LocalStack stack,
      ElasticsearchClient es,
      String mapping,
      List<IndexedDocument> documents,
      String index,
      int passCount)
      throws Exception {
    int loaders = Runtime.getRuntime().availableProcessors();
    List<DocumentOperation> ops = new ArrayList<>();
    for (IndexedDocument d : documents) {
      ops.add(
          DocumentOperation.index(
              index,
              d.id(),
              d.version(),
              d.source().toJson().toString().getBytes(StandardCharsets.UTF_8)));
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
   * A table made as weir's copy is ({@link DocumentCopy#migrate}), seeded with the rows weir's copy
   * had before the price changes, then the rows it has after them, written the plain way: every
   * column of every row upserted.
   *
   * <p>/** A fresh index (an old one of that name deleted) from {@code mapping}, a create-index
   * body: the job's own ({@link DocumentIndex#mapping()}), so both sides index the same fields.
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
