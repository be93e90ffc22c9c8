package dev.weir.connector.elasticsearch;

import java.io.Serializable;
import java.time.Duration;
import java.util.Optional;

/**
 * Where and how to reach the search cluster (Elasticsearch or OpenSearch). The password is not a
 * field: {@link #password} reads it in each process that connects (from the environment or a
 * mounted file), so it is never serialized into a job graph.
 *
 * @param url the cluster's HTTP(S) address
 * @param username the user to log in as, or null for none
 * @param password reads the user's password where the client is built
 * @param caFile a PEM file of the CA to trust over HTTPS, or null for the JVM's trust store
 * @param engine the engine answering at {@code url} ({@link Engine#named}), or null to ask the
 *     cluster
 */
public record ElasticsearchSettings(
    String url,
    String username,
    PasswordSource password,
    String caFile,
    String engine,
    Duration socketTimeout)
    implements Serializable {

  /** How long a request waits for its answer unless the settings say. */
  public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(60);

  /** Reads a password in the process that needs it. */
  @FunctionalInterface
  public interface PasswordSource extends Serializable {
    Optional<String> read();
  }

  /** A cluster whose engine is asked at start. */
  public ElasticsearchSettings(
      String url, String username, PasswordSource password, String caFile) {
    this(url, username, password, caFile, null, DEFAULT_SOCKET_TIMEOUT);
  }

  /** A cluster with no login and the JVM's trust store. */
  public static ElasticsearchSettings of(String url) {
    return new ElasticsearchSettings(url, null, Optional::empty, null);
  }
}
