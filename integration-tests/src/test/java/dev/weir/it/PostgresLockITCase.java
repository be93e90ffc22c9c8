package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.FeedOptions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A row of the job's table locked by another session for longer than the lock timeout: the write
 * waits no longer than the timeout, says why, retries, and lands once the lock goes.
 */
@ExtendWith(LocalStackExtension.class)
class PostgresLockITCase {

  private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setConfiguration(METRICS.addToConfiguration(new Configuration()))
              .build());

  private static final Duration LOCK_HELD = Duration.ofSeconds(8);

  @Test
  void aRowLockedLongerThanTheLockTimeoutDelaysTheWriteWhichLandsOnceWhenTheLockGoes()
      throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    WeirConfig config =
        TestDatabases.fresh(LocalStackExtension.config(), "it_pg_lock")
            .with(FeedOptions.TOPIC, "it.activity.lock." + run)
            .with(WeirOptions.DLQ_TOPIC, "it.dlq.lock." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s")
            // Nothing is final during the test: the entry is the provisional view, updated in
            // place.
            .with(FeedOptions.OUT_OF_ORDERNESS, "1 h")
            .with(WeirOptions.POSTGRES_LOCK_TIMEOUT, "1 s")
            .with(WeirOptions.POSTGRES_STATEMENT_TIMEOUT, "5 s")
            .with(WeirOptions.POSTGRES_SOCKET_TIMEOUT, "10 s");
    String url = config.get(WeirOptions.POSTGRES_URL);
    String topic = config.get(FeedOptions.TOPIC);
    Instant t0 = Instant.parse("2026-11-21T10:00:00Z");
    String entries =
        "SELECT event_count || '@' || to_char(first_at AT TIME ZONE 'UTC', 'HH24:MI:SS')"
            + " FROM feed_entry WHERE workspace_id = 'locked'";

    JobClient job =
        JobRunner.start(
            new ActivityFeedJob(), StreamExecutionEnvironment.getExecutionEnvironment(), config);
    try {
      Kafka.produce(topic, 0, List.of(ActivityFeedITCase.event("locked", t0)));
      assertThat(
              Await.until(
                  Duration.ofSeconds(60),
                  () -> TestDatabases.strings(config, url, entries),
                  r -> r.size() == 1))
          .containsExactly("1@10:00:00");

      long released;
      try (Connection locker = PostgresConnectionProvider.open(config, url);
          Statement lock = locker.createStatement()) {
        locker.setAutoCommit(false);
        lock.execute("SELECT 1 FROM feed_entry WHERE workspace_id = 'locked' FOR UPDATE");
        long locked = System.nanoTime();
        // Two more events of the entry: the job must UPDATE the locked row.
        Kafka.produce(
            topic,
            0,
            List.of(
                ActivityFeedITCase.event("locked", t0.plusSeconds(60)),
                ActivityFeedITCase.event("locked", t0.plusSeconds(120))));

        long timeouts =
            Await.until(Duration.ofSeconds(30), () -> timeouts(job.getJobID()), n -> n > 0);
        assertThat(timeouts)
            .as(
                "lock timeouts counted in %s while the row is locked",
                WeirMetrics.POSTGRES_TIMEOUTS)
            .isPositive();
        Thread.sleep(Math.max(0, LOCK_HELD.toMillis() - (System.nanoTime() - locked) / 1_000_000));
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
        assertThat(TestDatabases.strings(config, url, entries))
            .as("nothing gets past the lock")
            .containsExactly("1@10:00:00");
        locker.rollback();
        released = System.nanoTime();
      }

      List<String> after =
          Await.until(
              Duration.ofSeconds(60),
              () -> TestDatabases.strings(config, url, entries),
              r -> r.equals(List.of("3@10:00:00")));
      double landedAfter = (System.nanoTime() - released) / 1e9;
      assertThat(after).as("every event once, in one entry").containsExactly("3@10:00:00");
      assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
      assertThat(restarts(job.getJobID())).as("retried in the task, not restarted").isZero();
      System.out.printf(
          "row locked %d s: %d lock timeouts counted, no restart; the write landed %.1f s after"
              + " the lock went%n",
          LOCK_HELD.toSeconds(), timeouts(job.getJobID()), landedAfter);
    } finally {
      job.cancel().get();
    }
  }

  /** weirPostgresTimeouts, summed over the job's operators. */
  private static long timeouts(JobID job) {
    return METRICS.getMetricsByIdentifiers(job).entrySet().stream()
        .filter(m -> m.getKey().endsWith("." + WeirMetrics.POSTGRES_TIMEOUTS))
        .mapToLong(m -> ((Counter) m.getValue()).getCount())
        .sum();
  }

  private static long restarts(JobID job) {
    Metric restarts =
        METRICS.getMetricsByIdentifiers(job).entrySet().stream()
            .filter(m -> m.getKey().endsWith(".numRestarts"))
            .findFirst()
            .orElseThrow()
            .getValue();
    return ((Number) ((Gauge<?>) restarts).getValue()).longValue();
  }
}
