package dev.weir.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;

/**
 * Kafka, PostgreSQL and a search engine (Elasticsearch 8 or 9, OpenSearch 2) on 127.0.0.1, fetched
 * from Maven Central and started by weir itself: the one implementation behind {@code weir stack},
 * {@code weir demo} and the tests. Services that are already up are reused; files live under one
 * folder ({@code .weir/}).
 */
public final class LocalStack {

  private final StackSettings settings;
  private final KafkaService kafka;
  private final PostgresService postgres;
  private final SearchService elasticsearch;
  private final SearchService securedElasticsearch;
  private final List<LocalService> everySearchNode = new ArrayList<>();
  private final SpannerEmulatorService spanner;
  private final Tls tls;
  private final List<LocalService> startedHere = new ArrayList<>();

  public LocalStack(StackSettings settings) {
    this.settings = settings;
    Artifacts artifacts = new Artifacts(settings);
    OsProcesses processes = new OsProcesses(settings.serviceUser());
    this.tls = new Tls(settings);
    this.kafka = new KafkaService(settings, artifacts, tls);
    this.postgres = new PostgresService(settings, artifacts, processes, tls);
    for (SearchEngine engine : SearchEngine.values()) {
      everySearchNode.add(new SearchService(engine, settings, artifacts, processes));
      if (engine.isElasticsearch()) {
        everySearchNode.add(SearchService.secured(engine, settings, artifacts, processes, tls));
      }
    }
    // The engine asked for, else the one this stack runs, else the default.
    SearchEngine engine =
        settings
            .searchEngine()
            .orElseGet(
                () ->
                    everySearchNode.stream()
                        .filter(LocalService::holdsItsPort)
                        .map(node -> ((SearchService) node).engine())
                        .findFirst()
                        .orElse(SearchEngine.DEFAULT));
    this.elasticsearch = new SearchService(engine, settings, artifacts, processes);
    // Only Elasticsearch's integ-test zip has security: OpenSearch's secured node is Elasticsearch.
    this.securedElasticsearch =
        SearchService.secured(
            engine.isElasticsearch() ? engine : SearchEngine.DEFAULT,
            settings,
            artifacts,
            processes,
            tls);
    this.spanner = new SpannerEmulatorService(settings);
  }

  public static LocalStack fromEnvironment() {
    return new LocalStack(StackSettings.fromEnvironment());
  }

  public StackSettings settings() {
    return settings;
  }

  /** The stack's services; the Spanner emulator where it is installed. */
  public List<LocalService> services() {
    return spanner.installed()
        ? List.of(kafka, postgres, elasticsearch, spanner)
        : List.of(kafka, postgres, elasticsearch);
  }

  /** The stack's certificates: {@link Tls#caPem()} is what clients of its TLS endpoints trust. */
  public Tls tls() {
    return tls;
  }

  /** Where the broker's secured listener is (SASL_SSL, SCRAM-SHA-512, the stack's certificate). */
  public String kafkaSecureAddress() {
    return kafka.secureAddress();
  }

  /** The SCRAM user of the secured listener and its password. */
  public String[] kafkaSecureCredentials() {
    return new String[] {KafkaService.USER, kafka.password()};
  }

  public LocalService kafka() {
    return kafka;
  }

  public LocalService postgres() {
    return postgres;
  }

  /** The search engine's node (whichever engine the stack runs: {@link #searchEngine()}). */
  public LocalService elasticsearch() {
    return elasticsearch;
  }

  public SearchEngine searchEngine() {
    return elasticsearch.engine();
  }

  /** Cloud Spanner's emulator (identity's Spanner store), part of {@link #up()} if installed. */
  public SpannerEmulatorService spanner() {
    return spanner;
  }

  /**
   * A second Elasticsearch node with security on (HTTPS with the stack's certificate, basic auth),
   * not part of {@link #up()}: start it when needed; {@link #down()} stops it too.
   */
  public LocalService securedElasticsearch() {
    return securedElasticsearch;
  }

  /** The secured node's user and its password. */
  public String[] securedElasticsearchCredentials() {
    return new String[] {SearchService.USER, securedElasticsearch.password()};
  }

  /**
   * Starts every service that is not up yet (in parallel), writes {@code stack.env} and returns the
   * connection settings. Fails naming each service that did not come up.
   */
  public Connections up() {
    try {
      Files.createDirectories(settings.home());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<CompletableFuture<Void>> starts =
        services().stream()
            .map(
                service ->
                    CompletableFuture.runAsync(
                        () -> {
                          if (service.start()) {
                            synchronized (startedHere) {
                              startedHere.add(service);
                            }
                          }
                        }))
            .collect(Collectors.toList());
    List<String> failures = new ArrayList<>();
    for (CompletableFuture<Void> start : starts) {
      try {
        start.join();
      } catch (CompletionException e) {
        failures.add(e.getCause().getMessage());
      }
    }
    if (!failures.isEmpty()) {
      throw new StackException(String.join("\n", failures));
    }
    Connections connections = connections();
    writeEnvFile(environment());
    return connections;
  }

  /** The services this instance started (not those it found running). */
  public List<LocalService> startedHere() {
    synchronized (startedHere) {
      return List.copyOf(startedHere);
    }
  }

  /** Stops only what this instance started: tests leave a stack they found running alone. */
  public void stopStartedHere() {
    startedHere().forEach(LocalService::stop);
  }

  /** Stops every service of the stack's folder (every search engine's), whoever started it. */
  public void down() {
    services().forEach(LocalService::stop);
    everySearchNode.forEach(LocalService::stop);
  }

  public Connections connections() {
    return new Connections(
        kafka.address(),
        elasticsearch.address(),
        elasticsearch.engine().key(),
        StackSettings.HOST,
        settings.postgresPort(),
        PostgresService.USER,
        postgres.password(),
        PostgresService.DATABASE);
  }

  /** Creates a database on the stack's PostgreSQL unless it exists (e.g. the upstream catalog). */
  public void ensurePostgresDatabase(String name) {
    postgres.ensureDatabase(name);
  }

  /**
   * Drops and creates a database on the stack's PostgreSQL (the demo starts from a clean slate).
   */
  public void recreatePostgresDatabase(String name) {
    postgres.recreateDatabase(name);
  }

  /**
   * The variables of {@code stack.env}: the connections, and the Spanner emulator's where
   * installed.
   */
  public Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>(connections().environment());
    if (spanner.installed()) {
      env.putAll(spanner.environment());
    }
    return env;
  }

  public Path envFile() {
    return settings.home().resolve("stack.env");
  }

  private void writeEnvFile(Map<String, String> environment) {
    StringBuilder text =
        new StringBuilder("# Written by `weir stack up`. Source it: . .weir/stack.env\n");
    environment.forEach(
        (k, v) -> text.append("export ").append(k).append("='").append(v).append("'\n"));
    try {
      Files.writeString(envFile(), text);
      Files.setPosixFilePermissions(envFile(), PosixFilePermissions.fromString("rw-------"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
