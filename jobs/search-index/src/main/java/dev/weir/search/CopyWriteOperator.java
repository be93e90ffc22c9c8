package dev.weir.search;

import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.store.BatchStore;
import dev.weir.common.store.WriteBuffer;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.CopyWrite;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.operators.ProcessingTimeService.ProcessingTimeCallback;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Writes documents to the Postgres copy in batches (several changes of one document folded into one
 * write, {@link WriteBuffer}), then passes on to the index what the copy now holds: a document
 * written, or one whose content the copy already had, under the copy's version (a replay, or a job
 * started again without its state: the index keeps the version it has too); a document the copy
 * holds newer goes no further. Writes at the latest {@code flushIntervalMs} after the first
 * buffered one, when the buffer is full, and before every checkpoint barrier, so that what a
 * checkpoint covers is in the copy and on its way to the index.
 *
 * <p>A document PostgreSQL refuses ({@link CopyWrite.Refusal}) goes to the dead letters instead,
 * with the reason, before the same barrier, and not to the index: the copy and the index keep its
 * previous version, as the backfill would. The join sends a document's next change as the fields
 * that changed since the refused one, which the copy never took: that change is written whole.
 */
public final class CopyWriteOperator extends AbstractStreamOperator<DocumentChange>
    implements OneInputStreamOperator<DocumentChange, DocumentChange>,
        BoundedOneInput,
        ProcessingTimeCallback {

  private static final long serialVersionUID = 1L;

  private final BatchStore.Opener<DocumentChange, CopyWrite> opener;
  private final String job;
  private final String copyTable;
  private final long flushIntervalMs;
  private final int maxBuffered;
  private final String description;
  private final PostgresTimeouts timeouts;

  private transient BatchStore<DocumentChange, CopyWrite> store;
  private transient WriteBuffer<DocumentChange> buffer;
  private transient boolean flushScheduled;
  private transient Counter rowsWritten;
  private transient Counter stale;
  private transient Counter postgresTimeouts;
  private transient Counter deadLetters;
  private transient long reported;

  /**
   * Documents the copy refused and has not taken since (every subtask's, after a restore: an id
   * another subtask writes is of no use here, and costs only its bytes).
   */
  private transient Set<String> refused;

  private transient ListState<String> refusedState;

  /**
   * @param job the job, for the dead letters
   * @param copyTable the copy table, the dead letters' source
   * @param description the copy, for messages (e.g. "the copy product_document at jdbc:...")
   */
  public CopyWriteOperator(
      String job,
      String copyTable,
      BatchStore.Opener<DocumentChange, CopyWrite> opener,
      long flushIntervalMs,
      int maxBuffered,
      String description,
      PostgresTimeouts timeouts) {
    this.job = job;
    this.copyTable = copyTable;
    this.opener = opener;
    this.flushIntervalMs = flushIntervalMs;
    this.maxBuffered = maxBuffered;
    this.description = description;
    this.timeouts = timeouts;
    // In the assembler's task: a document (its large values) is not serialized once more to be
    // handed over.
    setChainingStrategy(ChainingStrategy.ALWAYS);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    refusedState =
        context
            .getOperatorStateStore()
            .getUnionListState(new ListStateDescriptor<>("refused-documents", String.class));
    refused = new HashSet<>();
    refusedState.get().forEach(refused::add);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    refusedState.update(List.copyOf(refused));
  }

  @Override
  public void open() throws Exception {
    super.open();
    JdbcDrivers.deregisterOnRelease(getRuntimeContext());
    store = opener.open();
    buffer = new WriteBuffer<>(description, d -> d.id, DocumentChange::then, maxBuffered, timeouts);
    rowsWritten = getMetricGroup().counter(WeirMetrics.ROWS_WRITTEN);
    stale = getMetricGroup().counter("weirDocumentsStale");
    postgresTimeouts = getMetricGroup().counter(WeirMetrics.POSTGRES_TIMEOUTS);
    deadLetters = getMetricGroup().counter(WeirMetrics.DEAD_LETTERS);
  }

  @Override
  public void processElement(StreamRecord<DocumentChange> element) throws Exception {
    if (buffer.add(element.getValue()) >= maxBuffered) {
      flush();
    } else if (!flushScheduled) {
      flushScheduled = true;
      long now = getProcessingTimeService().getCurrentProcessingTime();
      getProcessingTimeService().registerTimer(now + flushIntervalMs, this);
    }
  }

  @Override
  public void onProcessingTime(long time) throws Exception {
    flushScheduled = false;
    flush();
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    flush();
  }

  @Override
  public void endInput() throws Exception {
    flush();
  }

  private void flush() throws Exception {
    if (buffer.isEmpty()) {
      return;
    }
    List<DocumentChange> batch = buffer.take();
    for (DocumentChange doc : batch) {
      if (!doc.deleted && refused.contains(doc.id)) {
        doc.isNew = true;
        Arrays.fill(doc.changed, true);
      }
    }
    CopyWrite written = buffer.write(store, batch, postgresTimeouts);
    Set<String> refusedNow = new HashSet<>();
    for (CopyWrite.Refusal r : written.refused()) {
      refusedNow.add(r.change().id);
      refused.add(r.change().id);
      deadLetters.inc();
      output.collect(
          DeadLetters.TAG,
          new StreamRecord<>(
              DeadLetters.rejected(
                  job,
                  new SourcePosition(copyTable, 0, r.change().version, null),
                  r.document(),
                  r.reason())));
    }
    for (DocumentChange doc : batch) {
      Long version = written.held().get(doc.id);
      if (version == null) {
        if (!refusedNow.contains(doc.id)) {
          stale.inc();
        }
        continue;
      }
      refused.remove(doc.id);
      doc.version = version;
      output.collect(new StreamRecord<>(doc));
    }
    rowsWritten.inc(store.rowsWritten() - reported);
    reported = store.rowsWritten();
  }

  @Override
  public void close() throws Exception {
    if (store != null) {
      store.close();
    }
    super.close();
  }
}
