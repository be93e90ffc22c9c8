package dev.weir.backfill;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.copy.DocumentCopy.CopiedDocument;
import dev.weir.documents.index.ElasticsearchConnection;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * One split of the copy: its documents compared with what the target holds. A document the target
 * already holds with the same content hash is skipped (so a re-run or a resumed run sends almost
 * nothing); the others go out with their stored version as the external version (so a newer version
 * written meanwhile by the streaming job wins).
 */
final class SplitComparer extends RichFlatMapFunction<Long, DocumentOperation> {

  static final String READ = "backfill-read";
  static final String SENT = "backfill-sent";
  static final String SKIPPED = "backfill-skipped-unchanged";
  static final String BYTES = "backfill-bytes-sent";

  private final WeirConfig config;
  private final String target;
  private final CopySource source;
  private final Split[] splits;
  private final boolean dryRun;
  private transient Connection copy;
  private transient SearchCluster es;
  private transient LongCounter read;
  private transient LongCounter sent;
  private transient LongCounter skipped;
  private transient LongCounter bytes;

  /** Element {@code i} of the input is split {@code splits[i]}. */
  SplitComparer(
      WeirConfig config, String target, CopySource source, List<Split> splits, boolean dryRun) {
    this.config = config;
    this.target = target;
    this.source = source;
    this.splits = splits.toArray(Split[]::new);
    this.dryRun = dryRun;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    JdbcDrivers.deregisterOnRelease(getRuntimeContext());
    copy = PostgresConnectionProvider.open(config);
    copy.setReadOnly(true);
    es = ElasticsearchConnection.cluster(config);
    read = getRuntimeContext().getLongCounter(READ);
    sent = getRuntimeContext().getLongCounter(SENT);
    skipped = getRuntimeContext().getLongCounter(SKIPPED);
    bytes = getRuntimeContext().getLongCounter(BYTES);
  }

  @Override
  public void flatMap(Long index, Collector<DocumentOperation> out) throws Exception {
    Split split = splits[index.intValue()];
    // Compare the hashes first: whole documents (large descriptions) are read only to be sent.
    Map<String, byte[]> hashes =
        split.listed()
            ? source.contentHashes(copy, split.ids())
            : source.contentHashes(copy, split);
    if (hashes.isEmpty()) {
      return;
    }
    Map<String, TargetIndex.Held> held =
        TargetIndex.held(es, target, hashes.keySet(), source.routed());
    List<String> differing = differing(hashes, held);
    read.add(hashes.size());
    skipped.add(hashes.size() - differing.size());
    List<CopiedDocument> docs;
    if (differing.isEmpty()) {
      docs = List.of();
    } else if (differing.size() == hashes.size() && !split.listed()) {
      docs = source.read(copy, split); // nothing held (a first run): the range, in one scan
    } else {
      docs = source.read(copy, differing);
    }
    for (CopiedDocument d : docs) {
      DocumentOperation op =
          DocumentOperation.index(target, d.id(), d.version(), d.source()).routedBy(d.routing());
      TargetIndex.Held before = held.get(d.id());
      if (before != null && !Objects.equals(before.routing(), d.routing())) {
        op = op.movedFrom(before.routing()); // or it stays behind at the routing it had
      }
      sent.add(1);
      bytes.add(op.sizeInBytes());
      if (!dryRun) {
        out.collect(op);
      }
    }
  }

  /**
   * The ids whose document the target does not hold with the same content hash (a document without
   * a hash is always sent), in the copy's order.
   */
  static List<String> differing(
      Map<String, byte[]> copyHashes, Map<String, TargetIndex.Held> held) {
    List<String> ids = new ArrayList<>();
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
      es.close();
    }
  }
}
