package dev.weir.common.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import java.io.IOException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;

class PostgresTimeoutsTest {

  @Test
  void theDefaultsSuitProductionAndReachTheDriver() {
    PostgresTimeouts timeouts = PostgresTimeouts.of(WeirConfig.from(Map.of(), Map.of()));
    Properties driver = new Properties();
    timeouts.applyTo(driver);
    assertThat(driver).containsEntry("socketTimeout", "90").containsEntry("connectTimeout", "10");
    assertThat(timeouts.retryFor()).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void shortTimeoutsForATestAreTaken() {
    PostgresTimeouts timeouts =
        of(
            Map.of(
                "postgres.statement-timeout", "5 s",
                "postgres.lock-timeout", "1 s",
                "postgres.socket-timeout", "6 s",
                "postgres.connect-timeout", "2 s",
                "postgres.write-retry-for", "0 s"));
    Properties driver = new Properties();
    timeouts.applyTo(driver);
    assertThat(driver).containsEntry("socketTimeout", "6").containsEntry("connectTimeout", "2");
    assertThat(timeouts.retryFor()).isZero();
  }

  @Test
  void valuesThatMakeNoSenseAreClearErrors() {
    assertThatThrownBy(() -> of(Map.of("postgres.socket-timeout", "30 s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "postgres.socket-timeout 30 s: must be longer than postgres.statement-timeout (1 min):"
                + " the driver would drop the connection under a statement PostgreSQL is still"
                + " allowed to run");
    assertThatThrownBy(() -> of(Map.of("postgres.statement-timeout", "0 s")))
        .hasMessageStartingWith("postgres.socket-timeout 90 s: must be longer than")
        .hasMessageContaining("(0: no limit)");
    assertThatThrownBy(() -> of(Map.of("postgres.lock-timeout", "60 s")))
        .hasMessage(
            "postgres.lock-timeout 1 min: must be shorter than postgres.statement-timeout (1 min),"
                + " which would otherwise always fire first");
    assertThatThrownBy(() -> of(Map.of("postgres.socket-timeout", "90500 ms")))
        .hasMessage("postgres.socket-timeout 90500 ms: must be a whole number of s");
    assertThatThrownBy(() -> of(Map.of("postgres.lock-timeout", "1500 micros")))
        .hasMessageEndingWith(": must be a whole number of ms");
    assertThatThrownBy(() -> of(Map.of("postgres.connect-timeout", "0 s")))
        .hasMessageStartingWith("postgres.connect-timeout 0 ms: must be at least 1 s");
    assertThatThrownBy(() -> of(Map.of("postgres.lock-timeout", "ten seconds")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("postgres.lock-timeout");
    // No limit at all is a choice, not nonsense.
    of(
        Map.of(
            "postgres.statement-timeout", "0 s",
            "postgres.lock-timeout", "0 s",
            "postgres.socket-timeout", "0 s"));
  }

  @Test
  void aLockOrStatementTimeoutIsFoundInsideABatchFailure() {
    // As PgJDBC reports a failed batch: the statement with its values, then the server's error.
    SQLException lock =
        new SQLException(
            "ERROR: canceling statement due to lock timeout\n"
                + "  Where: while updating tuple (0,1) in relation \"feed_entry\"",
            "55P03");
    BatchUpdateException batch =
        new BatchUpdateException(
            "Batch entry 0 UPDATE feed_entry SET recent_details = ('"
                + "x".repeat(1000)
                + "')::jsonb WHERE workspace_id = ('w') was aborted: "
                + lock.getMessage()
                + "  Call getNextException to see other errors in the batch.",
            "55P03",
            null);
    batch.setNextException(lock);
    assertThat(PostgresTimeouts.firedIn(batch)).contains("lock timeout");
    assertThat(PostgresTimeouts.reason(new IOException("writing failed", batch)))
        .as("the statement's beginning and the relation, on one line, not every value bound")
        .isEqualTo(
            ("Batch entry 0 UPDATE feed_entry SET recent_details = ('" + "x".repeat(1000))
                    .substring(0, 160)
                + "...: ERROR: canceling statement due to lock timeout Where: while updating tuple"
                + " (0,1) in relation \"feed_entry\"");
    assertThat(
            PostgresTimeouts.firedIn(
                new IOException(
                    "wrapped",
                    new SQLException("canceling statement due to statement timeout", "57014"))))
        .contains("statement timeout");
    SQLException other = new SQLException("duplicate key", "23505");
    other.setNextException(new SQLException("connection lost", "08006"));
    assertThat(PostgresTimeouts.firedIn(other)).isEmpty();
  }

  @Test
  void aWriteStoppedByATimeoutIsRetriedAndCountedAndOtherFailuresAreNot() throws Exception {
    PostgresTimeouts timeouts = of(Map.of());
    SimpleCounter counted = new SimpleCounter();
    AtomicInteger attempts = new AtomicInteger();
    String result =
        timeouts.retrying(
            "the feed store",
            counted,
            () -> {
              if (attempts.incrementAndGet() == 1) {
                throw new SQLException("canceling statement due to lock timeout", "55P03");
              }
              return "written";
            });
    assertThat(result).isEqualTo("written");
    assertThat(attempts).hasValue(2);
    assertThat(counted.getCount()).isEqualTo(1);

    SQLException duplicate = new SQLException("duplicate key", "23505");
    assertThatThrownBy(
            () ->
                timeouts.retrying(
                    "the feed store",
                    counted,
                    () -> {
                      throw duplicate;
                    }))
        .isSameAs(duplicate);
    assertThat(counted.getCount()).isEqualTo(1);
  }

  @Test
  void pastItsBoundTheRetryFailsNamingTheTimeoutAndTheTarget() {
    PostgresTimeouts timeouts = of(Map.of("postgres.write-retry-for", "0 s"));
    SimpleCounter counted = new SimpleCounter();
    assertThatThrownBy(
            () ->
                timeouts.retrying(
                    "the feed store",
                    counted,
                    () -> {
                      throw new SQLException("canceling statement due to lock timeout", "55P03");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "a PostgreSQL lock timeout stopped the write to the feed store; gave up after 1"
                + " attempt in 0 ms")
        .hasMessageContaining("(postgres.write-retry-for is 0 ms)")
        .hasRootCauseMessage("canceling statement due to lock timeout");
    assertThat(counted.getCount()).isEqualTo(1);
  }

  private static PostgresTimeouts of(Map<String, String> arguments) {
    return PostgresTimeouts.of(WeirConfig.from(arguments, Map.of()));
  }
}
