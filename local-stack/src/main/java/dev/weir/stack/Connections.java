package dev.weir.stack;

import java.util.LinkedHashMap;
import java.util.Map;

/** How clients reach the local stack; also written to {@code .weir/stack.env}. */
public record Connections(
    String kafkaBootstrapServers,
    String elasticsearchUrl,
    String searchEngine,
    String postgresHost,
    int postgresPort,
    String postgresUser,
    String postgresPassword,
    String postgresDatabase) {

  /** The database cdc-catalog captures on the local stack (search-index's catalog). */
  public static final String CATALOG_DATABASE = "catalog";

  public String postgresJdbcUrl() {
    return postgresJdbcUrl(postgresDatabase);
  }

  public String postgresJdbcUrl(String database) {
    return "jdbc:postgresql://" + postgresHost + ":" + postgresPort + "/" + database;
  }

  /** The variables of {@code stack.env}, in order; the names jobs and libpq tools read. */
  public Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("KAFKA_BOOTSTRAP_SERVERS", kafkaBootstrapServers);
    env.put("ELASTICSEARCH_URL", elasticsearchUrl);
    // Which engine answers there (elasticsearch8, elasticsearch9, opensearch2): for people and
    // scripts; jobs do not read it.
    env.put("SEARCH_ENGINE", searchEngine);
    env.put("POSTGRES_JDBC_URL", postgresJdbcUrl());
    env.put("CATALOG_JDBC_URL", postgresJdbcUrl(CATALOG_DATABASE));
    env.put("PGHOST", postgresHost);
    env.put("PGPORT", Integer.toString(postgresPort));
    env.put("PGUSER", postgresUser);
    env.put("PGPASSWORD", postgresPassword);
    env.put("PGDATABASE", postgresDatabase);
    return env;
  }
}
