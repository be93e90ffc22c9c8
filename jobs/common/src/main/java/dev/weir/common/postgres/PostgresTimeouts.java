package dev.weir.common.postgres;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.io.IOException;
import java.io.Serializable;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.TimeUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statement, lock, socket and connect timeouts of every connection {@link
 * PostgresConnectionProvider} opens and of the connections of {@link Migrations}, and the bounded
 * retry of a batch write that a lock or statement timeout stopped. Without them a row locked by
 * another session blocked a task, and its checkpoints, until the lock went.
 */
public final class PostgresTimeouts implements Serializable {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTimeouts.class);

  /** SQLSTATE lock_not_available: lock_timeout fired. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /** SQLSTATE query_canceled: statement_timeout fired (or someone cancelled the statement). */
  private static final String QUERY_CANCELED = "57014";

  /** How much of a failed batch's statement a message shows. */
  private static final int STATEMENT_SHOWN = 160;

  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(15);

  private final Duration statement;
  private final Duration lock;
  private final Duration socket;
  private final Duration connect;
  private final Duration retryFor;

  private PostgresTimeouts(
      Duration statement, Duration lock, Duration socket, Duration connect, Duration retryFor) {
    this.statement = statement;
    this.lock = lock;
    this.socket = socket;
    this.connect = connect;
    this.retryFor = retryFor;
  }

  /** The configured timeouts; a clear error for values that make no sense together. */
  public static PostgresTimeouts of(WeirConfig config) {
    Duration statement = nonNegative(config, WeirOptions.POSTGRES_STATEMENT_TIMEOUT);
    Duration lock = nonNegative(config, WeirOptions.POSTGRES_LOCK_TIMEOUT);
    Duration socket = nonNegative(config, WeirOptions.POSTGRES_SOCKET_TIMEOUT);
    Duration connect = nonNegative(config, WeirOptions.POSTGRES_CONNECT_TIMEOUT);
    Duration retryFor = nonNegative(config, WeirOptions.POSTGRES_WRITE_RETRY_FOR);
    wholeUnits(WeirOptions.POSTGRES_STATEMENT_TIMEOUT, statement, Duration.ofMillis(1), "ms");
    wholeUnits(WeirOptions.POSTGRES_LOCK_TIMEOUT, lock, Duration.ofMillis(1), "ms");
    // The driver counts these in whole seconds.
    wholeUnits(WeirOptions.POSTGRES_SOCKET_TIMEOUT, socket, Duration.ofSeconds(1), "s");
    wholeUnits(WeirOptions.POSTGRES_CONNECT_TIMEOUT, connect, Duration.ofSeconds(1), "s");
    if (connect.isZero()) {
      throw invalid(
          WeirOptions.POSTGRES_CONNECT_TIMEOUT,
          connect,
          "must be at least 1 s: a connection attempt must not hang for ever");
    }
    if (!lock.isZero() && !statement.isZero() && lock.compareTo(statement) >= 0) {
      throw invalid(
          WeirOptions.POSTGRES_LOCK_TIMEOUT,
          lock,
          "must be shorter than "
              + WeirOptions.POSTGRES_STATEMENT_TIMEOUT.key()
              + " ("
              + format(statement)
              + "), which would otherwise always fire first");
    }
    if (!socket.isZero() && (statement.isZero() || socket.compareTo(statement) <= 0)) {
      throw invalid(
          WeirOptions.POSTGRES_SOCKET_TIMEOUT,
          socket,
          "must be longer than "
              + WeirOptions.POSTGRES_STATEMENT_TIMEOUT.key()
              + " ("
              + (statement.isZero() ? "0: no limit" : format(statement))
              + "): the driver would drop the connection under a statement PostgreSQL is still"
              + " allowed to run");
    }
    return new PostgresTimeouts(statement, lock, socket, connect, retryFor);
  }

  public Duration retryFor() {
    return retryFor;
  }

  /** The driver's side, as connection properties. */
  void applyTo(Properties driverProperties) {
    driverProperties.putAll(driverProperties());
  }

  /** The driver's side: the connection properties that carry it. */
  Map<String, String> driverProperties() {
    return Map.of(
        "socketTimeout", Long.toString(socket.toSeconds()),
        "connectTimeout", Long.toString(connect.toSeconds()));
  }

  /**
   * PostgreSQL's side, for the session. SET rather than the startup parameter {@code options}: a
   * URL that sets {@code options} itself (e.g. a search_path) would silently replace it, and
   * PgBouncer refuses it.
   */
  void applyTo(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(sessionSql());
    }
  }

  /** PostgreSQL's side: the statements that set it on a new session. */
  String sessionSql() {
    return "SET statement_timeout = "
        + statement.toMillis()
        + "; SET lock_timeout = "
        + lock.toMillis();
  }

  /** "lock timeout" or "statement timeout" when that is what stopped a statement. */
  public static Optional<String> firedIn(Throwable failure) {
    return serverError(failure)
        .map(
            e -> LOCK_NOT_AVAILABLE.equals(e.getSQLState()) ? "lock timeout" : "statement timeout");
  }

  /**
   * PostgreSQL's own error of a timeout (its "Where:" names the relation), the innermost: a failed
   * batch wraps it in an error that carries the same state.
   */
  private static Optional<SQLException> serverError(Throwable failure) {
    SQLException found = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      for (SQLException e = t instanceof SQLException s ? s : null;
          e != null;
          e = e.getNextException()) {
        if (LOCK_NOT_AVAILABLE.equals(e.getSQLState()) || QUERY_CANCELED.equals(e.getSQLState())) {
          found = e;
        }
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * The statement (its beginning: a batch's message carries every value it binds) and PostgreSQL's
   * error, on one line.
   */
  static String reason(Throwable failure) {
    SQLException server = serverError(failure).orElseThrow();
    String why = server.getMessage().replaceAll("\\s+", " ").trim();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BatchUpdateException batch && batch != server) {
        String statement = String.valueOf(batch.getMessage()).replaceAll("\\s+", " ");
        int aborted = statement.indexOf(" was aborted");
        statement = aborted < 0 ? statement : statement.substring(0, aborted);
        return (statement.length() > STATEMENT_SHOWN
                ? statement.substring(0, STATEMENT_SHOWN) + "..."
                : statement)
            + ": "
            + why;
      }
    }
    return why;
  }

  /** A write that may fail; it must be idempotent and roll back what it did when it fails. */
  @FunctionalInterface
  public interface Write<R> {
    R run() throws Exception;
  }

  /**
   * Runs {@code write}, and runs it again after a lock or statement timeout, with back-off, for up
   * to {@link #retryFor()}; each timeout is counted in {@code timeouts} and logged. Retrying in the
   * task rather than failing it: a restart would replay from the last checkpoint only to meet the
   * same lock, and a lock held a few minutes would spend {@code restart.max-attempts}. Bounded, so
   * that the checkpoint waiting for the write completes within its timeout; past the bound the task
   * fails with the cause and the job restarts as for any failure.
   *
   * @param target what is written, for the log (e.g. "the feed store at jdbc:...")
   */
  public <R> R retrying(String target, Counter timeouts, Write<R> write) throws Exception {
    long start = System.nanoTime();
    Duration backoff = FIRST_BACKOFF;
    for (int attempt = 1; ; attempt++) {
      try {
        return write.run();
      } catch (Exception e) {
        Optional<String> timeout = firedIn(e);
        if (timeout.isEmpty()) {
          throw e;
        }
        timeouts.inc();
        Duration spent = Duration.ofNanos(System.nanoTime() - start);
        if (spent.plus(backoff).compareTo(retryFor) > 0) {
          throw new IOException(
              "a PostgreSQL "
                  + timeout.get()
                  + " stopped the write to "
                  + target
                  + "; gave up after "
                  + attempt
                  + (attempt == 1 ? " attempt" : " attempts")
                  + " in "
                  + format(spent.truncatedTo(ChronoUnit.SECONDS))
                  + " ("
                  + WeirOptions.POSTGRES_WRITE_RETRY_FOR.key()
                  + " is "
                  + format(retryFor)
                  + "): "
                  + reason(e),
              e);
        }
        LOG.warn(
            "A PostgreSQL {} stopped the write to {} (attempt {}: {}); retrying in {}: {}",
            timeout.get(),
            target,
            attempt,
            timeout.get().equals("lock timeout")
                ? "another session holds a lock it needs"
                : "it ran longer than " + WeirOptions.POSTGRES_STATEMENT_TIMEOUT.key(),
            format(backoff),
            reason(e));
        Thread.sleep(backoff.toMillis());
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                ? MAX_BACKOFF
                : backoff.multipliedBy(2);
      }
    }
  }

  private static Duration nonNegative(WeirConfig config, ConfigOption<Duration> option) {
    Duration value = config.get(option);
    if (value.isNegative()) {
      throw invalid(option, value, "must not be negative");
    }
    return value;
  }

  private static void wholeUnits(
      ConfigOption<Duration> option, Duration value, Duration unit, String unitName) {
    if (value.toNanos() % unit.toNanos() != 0) {
      throw invalid(option, value, "must be a whole number of " + unitName);
    }
  }

  private static IllegalArgumentException invalid(
      ConfigOption<Duration> option, Duration value, String why) {
    return new IllegalArgumentException(option.key() + " " + format(value) + ": " + why);
  }

  private static String format(Duration d) {
    return TimeUtils.formatWithHighestUnit(d);
  }
}
