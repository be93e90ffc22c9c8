package dev.weir.search.join;

import dev.weir.common.job.Tombstones;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.Routing;
import dev.weir.documents.transform.FieldValues;
import dev.weir.documents.value.Hashes;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

/**
 * The root's assembler: one document per root row, emitted when a field's value changed, naming the
 * fields that did (the copy updates only those), with a version that only grows ({@link
 * Stamps#version}). A deleted root's last version is kept for {@code tombstoneTtl}, so that the row
 * coming back is written over the deletion.
 */
public class DocumentAssembler extends Assembler<DocumentChange> {

  private static final long serialVersionUID = 1L;

  /** The document last emitted: its fields' hashes, its version and its routing. */
  public static class Written {
    public long[] fieldHashes;
    public long version;
    public String routing;

    public Written() {}
  }

  static final ValueStateDescriptor<Written> WRITTEN =
      new ValueStateDescriptor<>("written", TypeInformation.of(Written.class));

  private transient ValueState<Written> written;
  private transient ValueState<Long> deletedVersion;
  private transient Counter documents;

  public DocumentAssembler(DocumentPlan plan, Duration coalesce, Duration tombstoneTtl) {
    super(plan, coalesce, tombstoneTtl);
  }

  @Override
  public void open(OpenContext context) throws Exception {
    super.open(context);
    written = getRuntimeContext().getState(WRITTEN);
    ValueStateDescriptor<Long> deleted = new ValueStateDescriptor<>("deleted-version", Types.LONG);
    deleted.enableTimeToLive(Tombstones.timeToLive(tombstoneTtl));
    deletedVersion = getRuntimeContext().getState(deleted);
    documents = getRuntimeContext().getMetricGroup().counter("weirDocumentsChanged");
  }

  /**
   * A document is emitted once the watermark has passed every change it reflects: then every change
   * made until then, of any table, has reached it. So a job reading a backlog (a replay of every
   * topic from the start) writes each document only in states the source held, read in the order
   * they were made, and ends on the version the live run wrote ({@link Stamps}).
   */
  @Override
  protected boolean waitsForTheWatermark() {
    return true;
  }

  @Override
  protected void assembled(
      DocumentPlan.Node root,
      String rowKey,
      RowValues values,
      String[] labelValues,
      long stamp,
      long time,
      Collector<DocumentChange> out)
      throws Exception {
    String[] own = FieldValues.of(root, values::json);
    String[] fields = new String[own.length + labelValues.length];
    long[] hashes = new long[fields.length];
    System.arraycopy(own, 0, fields, 0, own.length);
    System.arraycopy(labelValues, 0, fields, own.length, labelValues.length);
    for (int i = 0; i < fields.length; i++) {
      hashes[i] = Hashes.of(fields[i]);
    }
    Written last = written.value();
    DocumentChange doc = new DocumentChange();
    doc.id = rowKey;
    doc.values = fields;
    doc.changed = new boolean[fields.length];
    boolean any = false;
    for (int i = 0; i < fields.length; i++) {
      doc.changed[i] =
          last == null
              || last.fieldHashes.length != fields.length
              || last.fieldHashes[i] != hashes[i];
      any |= doc.changed[i];
    }
    if (!any) {
      unchanged.inc();
      return;
    }
    doc.isNew = last == null;
    routed(doc, last);
    doc.contentHash = Hashes.content(hashes);
    doc.version = Stamps.version(stamp, last != null ? last.version : lastDeletedVersion());
    Written now = new Written();
    now.fieldHashes = hashes;
    now.version = doc.version;
    now.routing = doc.routing;
    written.update(now);
    deletedVersion.clear();
    documents.inc();
    out.collect(doc);
  }

  @Override
  protected void removed(
      DocumentPlan.Node root, String rowKey, long stamp, long time, Collector<DocumentChange> out)
      throws Exception {
    Written last = written.value();
    if (last == null) {
      return;
    }
    long version = Stamps.version(stamp, last.version);
    written.clear();
    deletedVersion.update(version);
    documents.inc();
    out.collect(DocumentChange.deletion(rowKey, version, last.routing));
  }

  /**
   * The document's routing, from its routing field; where the one it was last written with differs,
   * the index deletes it there too (else it stays on the old shard, a second copy).
   */
  private void routed(DocumentChange doc, Written last) {
    int field = plan.routingField();
    doc.routing = field < 0 ? null : Routing.of(doc.values[field]);
    if (last != null && !Objects.equals(last.routing, doc.routing)) {
      doc.rerouted = true;
      doc.previousRouting = last.routing;
    }
  }

  private long lastDeletedVersion() throws Exception {
    Long v = deletedVersion.value();
    return v == null ? -1 : v;
  }
}
