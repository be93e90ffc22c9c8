package dev.weir.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Where the local stack keeps its files and which ports it binds, from system properties or the
 * environment, with local defaults. Everything binds to 127.0.0.1.
 *
 * <table>
 *   <tr><th>setting</th><th>system property</th><th>environment</th><th>default</th></tr>
 *   <tr><td>home folder</td><td>weir.home</td><td>WEIR_HOME</td><td>./.weir</td></tr>
 *   <tr><td>Kafka port</td><td>weir.kafka.port</td><td>WEIR_KAFKA_PORT</td><td>19092 (controller +1, SASL_SSL +2, ZooKeeper +3)</td></tr>
 *   <tr><td>PostgreSQL port</td><td>weir.postgres.port</td><td>WEIR_POSTGRES_PORT</td><td>15432</td></tr>
 *   <tr><td>Elasticsearch port</td><td>weir.elasticsearch.port</td><td>WEIR_ELASTICSEARCH_PORT</td><td>19200 (transport +100)</td></tr>
 *   <tr><td>search engine on that port</td><td>weir.search</td><td>WEIR_SEARCH</td><td>the one running, else elasticsearch8 ({@link SearchEngine})</td></tr>
 *   <tr><td>Spanner emulator port (gRPC)</td><td>weir.spanner.port</td><td>WEIR_SPANNER_PORT</td><td>19010 (REST +10)</td></tr>
 *   <tr><td>user for PostgreSQL and Elasticsearch when run as root</td><td>weir.service.user</td><td>WEIR_SERVICE_USER</td><td>nobody</td></tr>
 *   <tr><td>Maven repository to fetch from</td><td>weir.maven.remote</td><td>WEIR_MAVEN_REMOTE</td><td>Maven Central</td></tr>
 *   <tr><td>extra options of every Java service (Kafka, ZooKeeper, the search engine, Flink)</td><td>weir.stack.java-options</td><td>WEIR_STACK_JAVA_OPTIONS</td><td>none</td></tr>
 * </table>
 */
public record StackSettings(
    Path home,
    int kafkaPort,
    int postgresPort,
    int elasticsearchPort,
    int spannerPort,
    String serviceUser,
    Path mavenLocalRepository,
    String mavenRemoteRepository,
    Versions versions,
    Optional<SearchEngine> searchEngine,
    List<String> javaOptions) {

  public static final String HOST = "127.0.0.1";

  /** Service versions, managed in the parent pom and filtered into this module's resources. */
  public record Versions(
      String kafka,
      String slf4j,
      String elasticsearch,
      String elasticsearch9,
      String opensearch,
      String postgresBinaries,
      String flink,
      String log4j,
      String postgresDriver,
      String zookeeper) {}

  public static StackSettings fromEnvironment() {
    return from(System.getProperties(), System.getenv());
  }

  static StackSettings from(Properties properties, Map<String, String> env) {
    String home = setting(properties, env, "weir.home", "WEIR_HOME", ".weir");
    String localRepo =
        properties.getProperty(
            "maven.repo.local",
            Path.of(System.getProperty("user.home"), ".m2", "repository").toString());
    return new StackSettings(
        Path.of(home).toAbsolutePath().normalize(),
        port(setting(properties, env, "weir.kafka.port", "WEIR_KAFKA_PORT", "19092")),
        port(setting(properties, env, "weir.postgres.port", "WEIR_POSTGRES_PORT", "15432")),
        port(
            setting(
                properties, env, "weir.elasticsearch.port", "WEIR_ELASTICSEARCH_PORT", "19200")),
        port(setting(properties, env, "weir.spanner.port", "WEIR_SPANNER_PORT", "19010")),
        setting(properties, env, "weir.service.user", "WEIR_SERVICE_USER", "nobody"),
        Path.of(localRepo),
        setting(
            properties,
            env,
            "weir.maven.remote",
            "WEIR_MAVEN_REMOTE",
            "https://repo.maven.apache.org/maven2/"),
        loadVersions(),
        Optional.ofNullable(setting(properties, env, "weir.search", "WEIR_SEARCH", null))
            .map(SearchEngine::of),
        words(setting(properties, env, "weir.stack.java-options", "WEIR_STACK_JAVA_OPTIONS", "")));
  }

  /**
   * The properties that put another stack in {@code home}, on each of this stack's ports plus
   * {@code portShift}: a second stack beside this one.
   */
  public Map<String, String> besideAt(Path home, int portShift) {
    return Map.of(
        "weir.home", home.toString(),
        "weir.kafka.port", Integer.toString(kafkaPort + portShift),
        "weir.postgres.port", Integer.toString(postgresPort + portShift),
        "weir.elasticsearch.port", Integer.toString(elasticsearchPort + portShift),
        "weir.spanner.port", Integer.toString(spannerPort + portShift));
  }

  /** These settings with the search engine chosen (e.g. by {@code stack up --search}). */
  public StackSettings withSearchEngine(SearchEngine engine) {
    return new StackSettings(
        home,
        kafkaPort,
        postgresPort,
        elasticsearchPort,
        spannerPort,
        serviceUser,
        mavenLocalRepository,
        mavenRemoteRepository,
        versions,
        Optional.of(engine),
        javaOptions);
  }

  public int kafkaControllerPort() {
    return kafkaPort + 1;
  }

  /** The broker's SASL_SSL listener (SCRAM-SHA-512 over TLS), next to the plain one. */
  public int kafkaSecurePort() {
    return kafkaPort + 2;
  }

  /** ZooKeeper, for the local Flink cluster's high availability: next to the broker's ports. */
  public int zookeeperPort() {
    return kafkaPort + 3;
  }

  public int elasticsearchTransportPort() {
    return elasticsearchPort + 100;
  }

  /** The Spanner emulator's REST gateway (instances, databases, DDL), next to its gRPC port. */
  public int spannerHttpPort() {
    return spannerPort + 10;
  }

  private static String setting(
      Properties properties,
      Map<String, String> env,
      String property,
      String variable,
      String fallback) {
    String value = properties.getProperty(property);
    if (value == null || value.isBlank()) {
      value = env.get(variable);
    }
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  /** A command that starts a Java process: this JVM's java, the stack's options, then these. */
  List<String> java(String... options) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(javaOptions);
    command.addAll(List.of(options));
    return command;
  }

  private static List<String> words(String value) {
    return value.isBlank() ? List.of() : List.of(value.trim().split("\\s+"));
  }

  private static int port(String value) {
    try {
      int port = Integer.parseInt(value);
      if (port < 1024 || port > 65000) {
        throw new NumberFormatException();
      }
      return port;
    } catch (NumberFormatException e) {
      throw new StackException("port must be a number from 1024 to 65000, got '" + value + "'");
    }
  }

  private static Versions loadVersions() {
    try (InputStream in =
        StackSettings.class
            .getClassLoader()
            .getResourceAsStream("weir/stack-versions.properties")) {
      Properties p = new Properties();
      p.load(in);
      return new Versions(
          p.getProperty("kafka.version"),
          p.getProperty("slf4j.version"),
          p.getProperty("elasticsearch.version"),
          p.getProperty("elasticsearch9.version"),
          p.getProperty("opensearch.version"),
          p.getProperty("postgres.binaries.version"),
          p.getProperty("flink.version"),
          p.getProperty("log4j.version"),
          p.getProperty("postgresql.version"),
          p.getProperty("zookeeper.version"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
