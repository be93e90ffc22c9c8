package dev.weir.common.sink;

import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.common.postgres.PostgresTimeouts;
import java.io.IOException;
import java.io.Serializable;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.Counter;

/**
 * A store written in batches, as a Flink sink: buffers writes, folds several writes of one key into
 * one, and flushes at the latest {@code flushIntervalMs} after the first buffered write, when the
 * buffer is full, and before every checkpoint. At-least-once: the store's statements must be
 * idempotent. A write that a PostgreSQL lock or statement timeout stopped is retried with the same
 * batch (see {@link PostgresTimeouts#retrying}).
 *
 * @param <T> a write
 */
public final class BufferedStoreSink<T> implements Sink<T> {

  private static final long serialVersionUID = 1L;

  /** The store the sink writes to; opened once per parallel writer. */
  public interface Store<T> extends AutoCloseable {
    /** Writes one batch, at most one write per key. */
    void write(Collection<T> batch) throws Exception;

    /** Rows written so far (for the weirRowsWritten metric). */
    long rowsWritten();
  }

  /** Opens the store in the task (where credentials are read). */
  @FunctionalInterface
  public interface Opener<T> extends Serializable {
    Store<T> open() throws Exception;
  }

  /** The key writes are folded by. */
  @FunctionalInterface
  public interface KeyOf<T> extends Serializable {
    String key(T write);
  }

  /** Folds a later write of a key into the buffered one; null when nothing is left to do. */
  @FunctionalInterface
  public interface Fold<T> extends Serializable {
    T then(T earlier, T later);
  }

  private final String description;
  private final Opener<T> opener;
  private final KeyOf<T> keyOf;
  private final Fold<T> fold;
  private final long flushIntervalMs;
  private final int maxBuffered;
  private final PostgresTimeouts timeouts;

  public BufferedStoreSink(
      String description,
      Opener<T> opener,
      KeyOf<T> keyOf,
      Fold<T> fold,
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
    Store<T> store;
    JdbcDrivers.deregisterOnRelease(context.getUserCodeClassLoader());
    try {
      store = opener.open();
    } catch (Exception e) {
      throw new IOException("cannot open " + description + ": " + e.getMessage(), e);
    }
    return new Writer(
        store,
        context.getProcessingTimeService(),
        context.metricGroup().counter(WeirMetrics.ROWS_WRITTEN),
        context.metricGroup().counter(WeirMetrics.POSTGRES_TIMEOUTS));
  }

  private final class Writer implements SinkWriter<T> {
    private final Store<T> store;
    private final ProcessingTimeService time;
    private final Counter rowsWritten;
    private final Counter postgresTimeouts;
    private final Map<String, T> buffer = new LinkedHashMap<>();
    private boolean flushScheduled;
    private long reported;

    Writer(
        Store<T> store, ProcessingTimeService time, Counter rowsWritten, Counter postgresTimeouts) {
      this.store = store;
      this.time = time;
      this.rowsWritten = rowsWritten;
      this.postgresTimeouts = postgresTimeouts;
    }

    @Override
    public void write(T write, Context context) throws IOException {
      buffer.merge(keyOf.key(write), write, fold::then);
      if (buffer.size() >= maxBuffered) {
        flushBuffer();
      } else if (!flushScheduled) {
        flushScheduled = true;
        time.registerTimer(
            time.getCurrentProcessingTime() + flushIntervalMs,
            t -> {
              flushScheduled = false;
              flushBuffer();
            });
      }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
      flushBuffer();
    }

    private void flushBuffer() throws IOException {
      if (buffer.isEmpty()) {
        return;
      }
      try {
        timeouts.retrying(
            description,
            postgresTimeouts,
            () -> {
              store.write(buffer.values());
              return null;
            });
      } catch (Exception e) {
        throw new IOException(
            "writing " + buffer.size() + " rows to " + description + " failed: " + e.getMessage(),
            e);
      }
      buffer.clear();
      rowsWritten.inc(store.rowsWritten() - reported);
      reported = store.rowsWritten();
    }

    @Override
    public void close() throws Exception {
      store.close();
    }
  }
}
