package dev.weir.backfill;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.search.SearchDocument;
import dev.weir.search.SearchDocumentStore;
import dev.weir.sink.elasticsearch.DocumentOperation;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import java.sql.Connection;
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
  private final long firstId;
  private final int splitSize;
  private final boolean dryRun;
  private transient Connection copy;
  private transient ElasticsearchClient es;
  private transient LongCounter read;
  private transient LongCounter sent;
  private transient LongCounter skipped;
  private transient LongCounter bytes;

  SplitComparer(WeirConfig config, String target, long firstId, int splitSize, boolean dryRun) {
    this.config = config;
    this.target = target;
    this.firstId = firstId;
    this.splitSize = splitSize;
    this.dryRun = dryRun;
  }

  @Override
  public void open(OpenContext context) throws Exception {
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
    long from = firstId + split * splitSize;
    long to = from + splitSize;
    List<SearchDocument> docs = SearchDocumentStore.readRange(copy, from, to);
    if (docs.isEmpty()) {
      return;
    }
    Map<Long, TargetIndex.Held> held = TargetIndex.held(es, target, from, to);
    for (SearchDocument d : docs) {
      read.add(1);
      DocumentOperation op = toSend(d, held.get(d.productId), target);
      if (op == null) {
        skipped.add(1);
      } else {
        sent.add(1);
        bytes.add(op.sizeInBytes());
        if (!dryRun) {
          out.collect(op);
        }
      }
    }
  }

  /** The operation that brings the target up to the copy's document, or null if it has it. */
  static DocumentOperation toSend(SearchDocument doc, TargetIndex.Held held, String target) {
    String hash = doc.contentHash == null ? null : HexFormat.of().formatHex(doc.contentHash);
    if (held != null && hash != null && hash.equals(held.contentHash())) {
      return null;
    }
    return DocumentOperation.index(
        target, Long.toString(doc.productId), doc.docVersion, doc.toJson());
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
