package dev.weir.feed;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresConnectionProvider;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.Counter;

/**
 * The feed store as a Flink sink: buffers writes (coalescing several writes of one entry into one),
 * and flushes them at the latest after the store's share of the staleness bound, when the buffer is
 * full, and before every checkpoint (at-least-once; every statement is idempotent).
 */
public class FeedStoreSink implements Sink<FeedWrite> {

  private static final long serialVersionUID = 1L;
  private static final int MAX_BUFFERED = 1000;

  private final WeirConfig config;
  private final long flushIntervalMs;

  public FeedStoreSink(WeirConfig config, FeedSettings settings) {
    this.config = config;
    this.flushIntervalMs = settings.storeFlushMs();
  }

  @Override
  @SuppressWarnings("deprecation")
  public SinkWriter<FeedWrite> createWriter(InitContext context) throws IOException {
    try {
      return new Writer(
          openStore(config),
          context.getProcessingTimeService(),
          flushIntervalMs,
          context.metricGroup().counter(WeirMetrics.ROWS_WRITTEN));
    } catch (SQLException e) {
      throw new IOException(
          "cannot connect to the feed store at "
              + config.get(WeirOptions.POSTGRES_URL)
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The hot store at postgres.url, the archive at archive.postgres.url (one connection if the
   * same).
   */
  public static FeedStore openStore(WeirConfig config) throws SQLException {
    String hotUrl = config.get(WeirOptions.POSTGRES_URL);
    String archiveUrl = Migrations.archiveUrl(config);
    Connection hot = PostgresConnectionProvider.open(config, hotUrl);
    Connection archive =
        archiveUrl.equals(hotUrl) ? hot : PostgresConnectionProvider.open(config, archiveUrl);
    return new FeedStore(hot, archive);
  }

  private static final class Writer implements SinkWriter<FeedWrite> {
    private final FeedStore store;
    private final ProcessingTimeService time;
    private final long flushIntervalMs;
    private final Counter rowsWritten;
    private final Map<String, FeedWrite> buffer = new LinkedHashMap<>();
    private boolean flushScheduled;
    private long reported;

    Writer(FeedStore store, ProcessingTimeService time, long flushIntervalMs, Counter rowsWritten) {
      this.store = store;
      this.time = time;
      this.flushIntervalMs = flushIntervalMs;
      this.rowsWritten = rowsWritten;
    }

    @Override
    public void write(FeedWrite write, Context context) throws IOException {
      buffer.merge(
          write.entry.workspaceId + "\u0000" + write.entry.entryId, write, FeedWrite::then);
      if (buffer.size() >= MAX_BUFFERED) {
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
        store.write(buffer.values());
      } catch (SQLException e) {
        throw new IOException(
            "writing " + buffer.size() + " feed entries failed: " + e.getMessage(), e);
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
