package dev.weir.backfill;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.search.SearchDocument;
import dev.weir.search.SearchDocumentStore;
import dev.weir.sink.elasticsearch.DocumentOperation;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * One split of product ids: the copy's documents compared with what the target holds. A document
 * the target already holds with the same content hash is skipped (so a re-run or a resumed run
 * sends almost nothing); the others go out with their stored version as the external version (so a
 * newer version written meanwhile by the streaming job wins).
 */
final class SplitComparer extends RichFlatMapFunction<Long, DocumentOperation> {

  static final String READ = "backfill-read";
  static final String SENT = "backfill-sent";
  static final String SKIPPED = "backfill-skipped-unchanged";
  static final String BYTES = "backfill-bytes-sent";

  private final WeirConfig config;
  private final String target;
  private final long[] splitStarts;
  private final boolean dryRun;
  private transient Connection copy;
  private transient ElasticsearchClient es;
  private transient LongCounter read;
  private transient LongCounter sent;
  private transient LongCounter skipped;
  private transient LongCounter bytes;

  /**
   * @param splitStarts the first product id of each split: split {@code i} is the ids from {@code
   *     splitStarts[i]} up to the next split's first (the last one: to the end)
   */
  SplitComparer(WeirConfig config, String target, long[] splitStarts, boolean dryRun) {
    this.config = config;
    this.target = target;
    this.splitStarts = splitStarts;
    this.dryRun = dryRun;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    JdbcDrivers.deregisterOnRelease(getRuntimeContext());
    copy = PostgresConnectionProvider.open(config);
    copy.setReadOnly(true);
    es = ElasticsearchClients.blocking(ElasticsearchSettings.from(config));
    read = getRuntimeContext().getLongCounter(READ);
    sent = getRuntimeContext().getLongCounter(SENT);
    skipped = getRuntimeContext().getLongCounter(SKIPPED);
    bytes = getRuntimeContext().getLongCounter(BYTES);
  }

  @Override
  public void flatMap(Long split, Collector<DocumentOperation> out) throws Exception {
    int i = split.intValue();
    long from = splitStarts[i];
    long to = i + 1 < splitStarts.length ? splitStarts[i + 1] - 1 : Long.MAX_VALUE;
    Map<Long, TargetIndex.Held> held = TargetIndex.held(es, target, from, to);
    List<SearchDocument> docs;
    if (held.isEmpty()) {
      // Nothing to compare with (a first run): read the documents straight away.
      docs = SearchDocumentStore.readRange(copy, from, to);
      read.add(docs.size());
    } else {
      // Compare the hashes first: whole documents (large descriptions) are read only to be sent.
      Map<Long, byte[]> hashes = SearchDocumentStore.contentHashes(copy, from, to);
      List<Long> differing = differing(hashes, held);
      read.add(hashes.size());
      skipped.add(hashes.size() - differing.size());
      docs = differing.isEmpty() ? List.of() : SearchDocumentStore.read(copy, differing);
    }
    for (SearchDocument d : docs) {
      DocumentOperation op =
          DocumentOperation.index(target, Long.toString(d.productId), d.docVersion, d.toJson());
      sent.add(1);
      bytes.add(op.sizeInBytes());
      if (!dryRun) {
        out.collect(op);
      }
    }
  }

  /**
   * The product ids whose document the target does not hold with the same content hash (a document
   * without a hash is always sent).
   */
  static List<Long> differing(Map<Long, byte[]> copyHashes, Map<Long, TargetIndex.Held> held) {
    List<Long> ids = new ArrayList<>();
    copyHashes.forEach(
        (id, hash) -> {
          TargetIndex.Held h = held.get(id);
          if (hash == null
              || h == null
              || !HexFormat.of().formatHex(hash).equals(h.contentHash())) {
            ids.add(id);
          }
        });
    return ids;
  }

  @Override
  public void close() throws Exception {
    if (copy != null) {
      copy.close();
    }
    if (es != null) {
      es._transport().close();
    }
  }
}
