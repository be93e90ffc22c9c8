package dev.weir.common.postgres;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.apache.flink.connector.jdbc.datasource.connections.JdbcConnectionProvider;
import org.postgresql.Driver;

/**
 * JDBC connections to weir's PostgreSQL for Flink's JDBC sink. Unlike the connector's own provider
 * it carries no password: each task reads it from its environment or secret file when it connects,
 * so the secret never travels inside the job graph. Every connection gets the timeouts of {@link
 * PostgresTimeouts}.
 */
public final class PostgresConnectionProvider implements JdbcConnectionProvider {

  private static final long serialVersionUID = 1L;
  private static final Driver DRIVER = new Driver();

  private final String url;
  private final WeirConfig config;
  private transient Connection connection;

  public PostgresConnectionProvider(WeirConfig config) {
    this(config, config.get(WeirOptions.POSTGRES_URL));
  }

  public PostgresConnectionProvider(WeirConfig config, String url) {
    this.config = config;
    this.url = url;
  }

  /** A new connection (caller closes it). */
  public static Connection open(WeirConfig config, String url) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", config.get(WeirOptions.POSTGRES_USER));
    props.setProperty("password", config.postgresPassword());
    // Batched INSERTs become multi-row statements: about twice the write rate.
    props.setProperty("reWriteBatchedInserts", "true");
    props.setProperty("ApplicationName", "weir");
    PostgresTimeouts timeouts = PostgresTimeouts.of(config);
    timeouts.applyTo(props);
    // The driver directly, not DriverManager: on a Flink cluster each submission has its own class
    // loader, and DriverManager refuses a driver registered from another one ("No suitable
    // driver").
    Connection connection = DRIVER.connect(url, props);
    if (connection == null) {
      throw new SQLException("not a PostgreSQL JDBC URL: " + url);
    }
    try {
      timeouts.applyTo(connection);
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
    return connection;
  }

  public static Connection open(WeirConfig config) throws SQLException {
    return open(config, config.get(WeirOptions.POSTGRES_URL));
  }

  @Override
  public Connection getConnection() {
    return connection;
  }

  @Override
  public boolean isConnectionValid() throws SQLException {
    return connection != null && connection.isValid(5);
  }

  @Override
  public Connection getOrEstablishConnection() throws SQLException {
    if (!isConnectionValid()) {
      closeConnection();
      connection = open(config, url);
    }
    return connection;
  }

  @Override
  public void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // Closing a broken connection: nothing left to do with it.
      }
      connection = null;
    }
  }

  @Override
  public Connection reestablishConnection() throws SQLException {
    closeConnection();
    return getOrEstablishConnection();
  }
}
