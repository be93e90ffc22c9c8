package dev.weir.search;

import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.store.BatchStore;
import dev.weir.common.store.WriteBuffer;
import dev.weir.documents.DocumentChange;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.operators.ProcessingTimeService.ProcessingTimeCallback;
import org.apache.flink.metrics.Counter;
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
 */
public final class CopyWriteOperator extends AbstractStreamOperator<DocumentChange>
    implements OneInputStreamOperator<DocumentChange, DocumentChange>,
        BoundedOneInput,
        ProcessingTimeCallback {

  private static final long serialVersionUID = 1L;

  private final BatchStore.Opener<DocumentChange, Map<String, Long>> opener;
  private final long flushIntervalMs;
  private final int maxBuffered;
  private final String description;
  private final PostgresTimeouts timeouts;

  private transient BatchStore<DocumentChange, Map<String, Long>> store;
  private transient WriteBuffer<DocumentChange> buffer;
  private transient boolean flushScheduled;
  private transient Counter rowsWritten;
  private transient Counter stale;
  private transient Counter postgresTimeouts;
  private transient long reported;

  /**
   * @param description the copy, for messages (e.g. "the copy product_document at jdbc:...")
   */
  public CopyWriteOperator(
      BatchStore.Opener<DocumentChange, Map<String, Long>> opener,
      long flushIntervalMs,
      int maxBuffered,
      String description,
      PostgresTimeouts timeouts) {
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
  public void open() throws Exception {
    super.open();
    JdbcDrivers.deregisterOnRelease(getRuntimeContext());
    store = opener.open();
    buffer = new WriteBuffer<>(description, d -> d.id, DocumentChange::then, maxBuffered, timeouts);
    rowsWritten = getMetricGroup().counter(WeirMetrics.ROWS_WRITTEN);
    stale = getMetricGroup().counter("weirDocumentsStale");
    postgresTimeouts = getMetricGroup().counter(WeirMetrics.POSTGRES_TIMEOUTS);
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
    Map<String, Long> held = buffer.write(store, batch, postgresTimeouts);
    for (DocumentChange doc : batch) {
      Long version = held.get(doc.id);
      if (version == null) {
        stale.inc();
        continue;
      }
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
