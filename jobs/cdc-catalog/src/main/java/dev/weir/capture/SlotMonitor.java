package dev.weir.capture;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes the capture's change events on unchanged, and reports its replication slot's health as
 * metrics: how far behind the server's WAL the slot has confirmed (bytes and seconds) and how much
 * WAL the slot makes the server keep. A capture that stops consuming keeps WAL on the source until
 * its disk is full; these are what an alert watches (k8s/grafana).
 */
final class SlotMonitor extends RichMapFunction<String, String> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(SlotMonitor.class);

  /** How often the slot is read. */
  static final long POLL_MS = 10_000;

  /** Readings kept to tell the lag's age: an hour at the poll interval. */
  private static final int READINGS = 360;

  private final WeirConfig config;
  private final String url;
  private final String slot;

  private transient ScheduledExecutorService polling;
  private transient Connection connection;
  private transient LagClock clock;
  private transient volatile long lagBytes;
  private transient volatile long retainedBytes;
  private transient volatile double lagSeconds;

  SlotMonitor(WeirConfig config, String url, String slot) {
    this.config = config;
    this.url = url;
    this.slot = slot;
  }

  @Override
  public void open(OpenContext openContext) {
    clock = new LagClock(READINGS);
    MetricGroup metrics = getRuntimeContext().getMetricGroup();
    metrics.gauge(WeirMetrics.SLOT_LAG_BYTES, () -> lagBytes);
    metrics.gauge(WeirMetrics.SLOT_LAG_SECONDS, () -> lagSeconds);
    metrics.gauge(WeirMetrics.SLOT_RETAINED_WAL_BYTES, () -> retainedBytes);
    polling =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "weir slot monitor: " + slot);
              t.setDaemon(true);
              return t;
            });
    polling.scheduleWithFixedDelay(this::read, 0, POLL_MS, TimeUnit.MILLISECONDS);
  }

  @Override
  public String map(String event) {
    return event;
  }

  private void read() {
    try {
      if (connection == null || connection.isClosed()) {
        connection = PostgresConnectionProvider.open(config, url);
      }
      Optional<ReplicationSlots.Slot> read = ReplicationSlots.named(connection, slot);
      if (read.isEmpty()) {
        return; // created by the source when it starts streaming
      }
      ReplicationSlots.Slot s = read.get();
      lagBytes = s.lagBytes();
      retainedBytes = s.retainedBytes();
      lagSeconds = clock.lagSeconds(System.currentTimeMillis(), s.currentLsn(), s.confirmedLsn());
    } catch (SQLException | RuntimeException e) {
      LOG.warn("cannot read the replication slot {} at {}: {}", slot, url, e.toString());
      closeConnection();
    }
  }

  @Override
  public void close() throws Exception {
    if (polling != null) {
      polling.shutdownNow();
      polling.awaitTermination(10, TimeUnit.SECONDS);
    }
    closeConnection();
    super.close();
  }

  private void closeConnection() {
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (SQLException e) {
      // Closing a broken connection: nothing left to do.
    }
    connection = null;
  }
}
