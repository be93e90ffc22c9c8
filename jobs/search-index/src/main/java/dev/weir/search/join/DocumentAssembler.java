package dev.weir.search.join;

import dev.weir.common.job.Tombstones;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.Routing;
import dev.weir.documents.transform.FieldValues;
import dev.weir.documents.value.Hashes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.util.Collector;

/**
 * The root's assembler: one document per root row, emitted when a field's value changed, naming the
 * fields that did (the copy updates only those), with a version that only grows ({@link
 * Stamps#version}). A deleted root's last version is kept for {@code tombstoneTtl}, so that the row
 * coming back is written over the deletion.
 */
public class DocumentAssembler extends Assembler<DocumentChange> implements CheckpointedFunction {

  private static final long serialVersionUID = 1L;

  /** The document last emitted: its fields' hashes, its version and its routing. */
  public static class Written {
    public long[] fieldHashes;
    public long version;
    public String routing;

    /** The run of the job that emitted it ({@link #run}); 0 before runs were told apart. */
    public long run;

    /** Emitted with {@link DocumentChange#copyMayBeAhead}: the copy may have raised its version. */
    public boolean settledByCopy;

    public Written() {}
  }

  static final ValueStateDescriptor<Written> WRITTEN =
      new ValueStateDescriptor<>("written", TypeInformation.of(Written.class));

  private transient ValueState<Written> written;
  private transient ValueState<Long> deletedVersion;
  private transient Counter documents;

  /**
   * This run of the job, a random number: a document written in an earlier run (its state restored
   * from a checkpoint) may have been written further after that checkpoint.
   */
  private transient long run;

  private transient boolean restored;
  private transient boolean restarted;

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
    run = ThreadLocalRandom.current().nextLong() | 1;
    // A task restarted before the job's first checkpoint starts without state, yet its earlier
    // attempt wrote to the copy.
    restarted = getRuntimeContext().getTaskInfo().getAttemptNumber() > 0;
  }

  @Override
  public void initializeState(FunctionInitializationContext context) {
    restored = context.isRestored();
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) {}

  /**
   * Whether the copy may hold this document at a version this one does not exceed, though of the
   * same source state or an older one: a job restored from a checkpoint replays what it did after
   * it, and versions raised one by one while a document's rows arrived (a snapshot's, all of one
   * stamp) need not rise as far again. So the first document after a restore, and those after it of
   * the same stamp, are settled by the copy ({@link DocumentChange#copyMayBeAhead}), as is every
   * new key of a restarted task (it may have restarted before any checkpoint). A job submitted
   * without state wrote everything in its state itself.
   */
  private boolean copyMayBeAhead(Written last, long stamp) {
    if (last == null) {
      return restored || restarted;
    }
    return last.run != run || (last.settledByCopy && Stamps.version(stamp, -1) <= last.version);
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
    doc.copyMayBeAhead = copyMayBeAhead(last, stamp);
    Written now = new Written();
    now.fieldHashes = hashes;
    now.version = doc.version;
    now.routing = doc.routing;
    now.run = run;
    now.settledByCopy = doc.copyMayBeAhead;
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
    DocumentChange deletion = DocumentChange.deletion(rowKey, version, last.routing);
    deletion.copyMayBeAhead = copyMayBeAhead(last, stamp);
    out.collect(deletion);
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
