package dev.weir.common.store;

import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.common.postgres.PostgresTimeouts;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.Counter;

/**
 * A store written in batches, as a Flink sink: buffers writes, folds several writes of one key into
 * one, and flushes at the latest {@code flushIntervalMs} after the first buffered write, when the
 * buffer is full, and before every checkpoint. A batch is written on a thread of its own while the
 * next one fills, up to four times the buffer's size; a checkpoint waits until both are written.
 * At-least-once: the store's statements must be idempotent. A write is retried as {@link
 * WriteBuffer#write} says.
 *
 * @param <T> a write
 */
public final class BufferedStoreSink<T> implements Sink<T> {

  private static final long serialVersionUID = 1L;

  private final String description;
  private final BatchStore.Opener<T, ?> opener;
  private final WriteBuffer.KeyOf<T> keyOf;
  private final WriteBuffer.Fold<T> fold;
  private final long flushIntervalMs;
  private final int maxBuffered;
  private final PostgresTimeouts timeouts;

  public <R> BufferedStoreSink(
      String description,
      BatchStore.Opener<T, R> opener,
      WriteBuffer.KeyOf<T> keyOf,
      WriteBuffer.Fold<T> fold,
      long flushIntervalMs,
      int maxBuffered,
      PostgresTimeouts timeouts) {
    this.description = description;
    this.opener = opener;
    this.keyOf = keyOf;
    this.fold = fold;
    this.flushIntervalMs = flushIntervalMs;
    this.maxBuffered = maxBuffered;
    this.timeouts = timeouts;
  }

  @Override
  @SuppressWarnings("deprecation")
  public SinkWriter<T> createWriter(InitContext context) throws IOException {
    BatchStore<T, ?> store;
    JdbcDrivers.deregisterOnRelease(context.getUserCodeClassLoader());
    try {
      store = opener.open();
    } catch (Exception e) {
      throw new IOException("cannot open " + description + ": " + e.getMessage(), e);
    }
    return writer(
        store,
        context.getProcessingTimeService(),
        context.metricGroup().counter(WeirMetrics.ROWS_WRITTEN),
        context.metricGroup().counter(WeirMetrics.POSTGRES_TIMEOUTS));
  }

  /** The writer of an opened store (tests give their own store and time). */
  SinkWriter<T> writer(
      BatchStore<T, ?> store,
      ProcessingTimeService time,
      Counter rowsWritten,
      Counter postgresTimeouts) {
    return new Writer(store, time, rowsWritten, postgresTimeouts);
  }

  /** See {@code Writer#maxWaiting}. */
  private static final int BUFFERS_WHILE_WRITING = 4;

  private final class Writer implements SinkWriter<T> {
    private final BatchStore<T, ?> store;
    private final ProcessingTimeService time;
    private final Counter rowsWritten;
    private final Counter postgresTimeouts;

    /**
     * Writes the batches while the task goes on: one at a time, in the order handed off. On the
     * task thread, a batch's round trips to the store would hold up thousands of events.
     */
    private final ExecutorService writing;

    private final WriteBuffer<T> buffer =
        new WriteBuffer<>(description, keyOf, fold, maxBuffered, timeouts);

    /**
     * The batch being written (its row count), if any: the next one and a checkpoint wait for it.
     */
    private Future<Long> inFlight;

    private boolean flushScheduled;

    Writer(
        BatchStore<T, ?> store,
        ProcessingTimeService time,
        Counter rowsWritten,
        Counter postgresTimeouts) {
      this.store = store;
      this.time = time;
      this.rowsWritten = rowsWritten;
      this.postgresTimeouts = postgresTimeouts;
      this.writing =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "weir writer: " + description);
                t.setDaemon(true);
                return t;
              });
    }

    @Override
    public void write(T write, Context context) throws IOException {
      int waiting = buffer.add(write);
      if (waiting >= maxBuffered && (writeDone() || waiting >= maxWaiting())) {
        handOff();
      } else if (!flushScheduled) {
        flushScheduled = true;
        time.registerTimer(
            time.getCurrentProcessingTime() + flushIntervalMs,
            t -> {
              flushScheduled = false;
              handOff();
            });
      }
    }

    /** Whether no batch is being written (a failed one throws at the hand-off). */
    private boolean writeDone() {
      return inFlight == null || inFlight.isDone();
    }

    /**
     * How many writes may wait while a batch is being written before the task waits for it: a full
     * buffer handed off only once the write before it ended would park the task in that wait while
     * the writer shares the cores with it and PostgreSQL.
     */
    private int maxWaiting() {
      return BUFFERS_WHILE_WRITING * maxBuffered;
    }

    /** Before a checkpoint (and at the end of the input): everything buffered is in the store. */
    @Override
    public void flush(boolean endOfInput) throws IOException {
      handOff();
      awaitInFlight();
    }

    /**
     * Starts writing the buffer once the batch before it is written; a failure of that one throws.
     */
    private void handOff() throws IOException {
      if (buffer.isEmpty()) {
        return;
      }
      awaitInFlight();
      List<T> batch = buffer.take();
      inFlight = writing.submit(() -> writeBatch(batch));
    }

    private long writeBatch(List<T> batch) throws IOException {
      long before = store.rowsWritten();
      buffer.write(store, batch, postgresTimeouts);
      return store.rowsWritten() - before;
    }

    private void awaitInFlight() throws IOException {
      if (inFlight == null) {
        return;
      }
      try {
        rowsWritten.inc(inFlight.get());
      } catch (ExecutionException e) {
        throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while writing to " + description, e);
      } finally {
        inFlight = null;
      }
    }

    /** A batch still in flight is not waited for: what it held is replayed from the checkpoint. */
    @Override
    public void close() throws Exception {
      writing.shutdownNow();
      writing.awaitTermination(10, TimeUnit.SECONDS);
      store.close();
    }
  }
}
