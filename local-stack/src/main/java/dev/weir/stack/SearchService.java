package dev.weir.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A search engine ({@link SearchEngine}: Elasticsearch 8 or 9, OpenSearch 2) from its integ-test
 * zip on Maven Central: single node on 127.0.0.1. The zips have no scripting, ingest or
 * analysis-common modules; mappings stay on core types. The stack's node has security off; {@link
 * #secured} is a second Elasticsearch node as production clusters are set up (HTTPS with the
 * stack's certificate, a user and password of the file realm), started on demand.
 */
final class SearchService implements LocalService {

  /** The secured node's user (a superuser of its file realm). */
  static final String USER = "weir";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final SearchEngine engine;
  private final StackSettings settings;
  private final Artifacts artifacts;
  private final OsProcesses processes;
  private final Tls tls; // null: security off
  private final Path dir;
  private final int httpPort;
  private final int transportPort;
  private final HttpClient http;

  SearchService(
      SearchEngine engine, StackSettings settings, Artifacts artifacts, OsProcesses processes) {
    this(engine, settings, artifacts, processes, null);
  }

  private SearchService(
      SearchEngine engine,
      StackSettings settings,
      Artifacts artifacts,
      OsProcesses processes,
      Tls tls) {
    this.engine = engine;
    this.settings = settings;
    this.artifacts = artifacts;
    this.processes = processes;
    this.tls = tls;
    this.dir = settings.home().resolve(engine.folder() + (tls == null ? "" : "-secured"));
    this.httpPort = settings.elasticsearchPort() + (tls == null ? 0 : 1);
    this.transportPort = settings.elasticsearchTransportPort() + (tls == null ? 0 : 1);
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
    if (tls != null) {
      client.sslContext(tls.clientContext());
    }
    this.http = client.build();
  }

  /**
   * The secured node: HTTPS on the port after the plain node's, user {@link #USER}. Only
   * Elasticsearch has security in its integ-test zip.
   */
  static SearchService secured(
      SearchEngine engine,
      StackSettings settings,
      Artifacts artifacts,
      OsProcesses processes,
      Tls tls) {
    if (!engine.isElasticsearch()) {
      throw new StackException(
          engine.product() + "'s integ-test zip has no security plugin: no secured node");
    }
    return new SearchService(engine, settings, artifacts, processes, tls);
  }

  /** The product, "Elasticsearch" or "OpenSearch" (measurements are keyed by it). */
  @Override
  public String name() {
    return engine.product() + (tls == null ? "" : " (secured)");
  }

  SearchEngine engine() {
    return engine;
  }

  @Override
  public int port() {
    return httpPort;
  }

  @Override
  public String address() {
    return (tls == null ? "http://" : "https://") + StackSettings.HOST + ":" + httpPort;
  }

  /** The password of {@link #USER} on the secured node (generated, kept in its folder). */
  String password() {
    return Secrets.generated(dir.resolve("password"));
  }

  @Override
  public Path log() {
    return dir.resolve("logs").resolve("weir.log");
  }

  /**
   * A healthy Elasticsearch answers on the port and it is this stack's: the node its pid file names
   * listens there (where /proc cannot tell, a node on the port of a live stack process is taken for
   * it).
   */
  @Override
  public boolean isUp() {
    return healthy() && holdsItsPort();
  }

  private boolean healthy() {
    // GET / answers 405 on the integ-test distribution: ask the cluster health instead.
    try {
      HttpRequest.Builder health =
          HttpRequest.newBuilder(URI.create(address() + "/_cluster/health"))
              .timeout(Duration.ofSeconds(2))
              .GET();
      if (tls != null) {
        health.header(
            "Authorization",
            "Basic "
                + Base64.getEncoder()
                    .encodeToString((USER + ":" + password()).getBytes(StandardCharsets.UTF_8)));
      }
      HttpResponse<String> response =
          http.send(health.build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 && !response.body().contains("\"status\":\"red\"");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public boolean start() {
    if (isUp()) {
      return false;
    }
    if (OsProcesses.portOpen(httpPort)) {
      refuseAnotherEngineOfThisStack();
      throw new StackException(
          name()
              + ": port "
              + httpPort
              + (healthy()
                  ? " is taken by a search node this stack did not start (its pid file: "
                      + pidFile()
                      + ")"
                  : " is taken by something that is not a healthy search node")
              + " (set WEIR_ELASTICSEARCH_PORT to use another port)");
    }
    Path javaHome = SearchEngineJava.find(engine, settings.versions());
    String version = engine.version(settings.versions());
    Path distribution = dir.resolve("dist-" + version);
    if (!Files.exists(distribution.resolve(".unpacked"))) {
      Archives.unzipOnce(artifacts.resolve(engine.coordinates(settings.versions())), distribution);
    }
    try {
      for (String sub : List.of("data", "logs", "tmp", "home")) {
        Files.createDirectories(dir.resolve(sub));
      }
      Files.deleteIfExists(pidFile());
      Map<String, String> env = new HashMap<>();
      env.put(engine.javaHomeVariable(), javaHome.toString());
      env.put(
          engine.javaOptionsVariable(),
          String.join(" ", settings.javaOptions()) + " -Xms512m -Xmx1g");
      env.put(engine.tmpDirVariable(), dir.resolve("tmp").toString());
      env.put("HOME", dir.resolve("home").toString());
      List<String> engineSettings = new ArrayList<>();
      for (String setting : engine.settings()) {
        engineSettings.addAll(List.of("-E", setting));
      }
      if (tls != null) {
        engineSettings = secure(distribution, env);
      }
      processes.ownByServiceUser(dir);
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              distribution.resolve(engine.launcher()).toString(),
              "-d",
              "-p",
              pidFile().toString(),
              "-E",
              "cluster.name=weir",
              "-E",
              "node.name=weir-local",
              "-E",
              "discovery.type=single-node",
              "-E",
              "network.host=" + StackSettings.HOST,
              "-E",
              "http.port=" + httpPort,
              "-E",
              "transport.port=" + transportPort,
              "-E",
              "path.data=" + dir.resolve("data"),
              "-E",
              "path.logs=" + dir.resolve("logs"),
              // A nearly full developer disk must not turn the local indices read-only.
              "-E",
              "cluster.routing.allocation.disk.threshold_enabled=false"));
      command.addAll(engineSettings);
      Path launcherLog = dir.resolve("launcher.log");
      Process launcher =
          OsProcesses.startDetached(
              processes.unprivileged(command), distribution, env, launcherLog);
      OsProcesses.awaitReady(
          name(),
          START_TIMEOUT,
          log(),
          Optional.empty(),
          () -> {
            if (!launcher.isAlive() && launcher.exitValue() != 0) {
              throw new StackException(
                  name()
                      + " launcher exited with code "
                      + launcher.exitValue()
                      + "; logs: "
                      + launcherLog
                      + " and "
                      + log());
            }
            return isUp();
          });
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The secured node's own configuration folder (ES_PATH_CONF): the distribution's, the stack's
   * certificate, and {@link #USER} in the file realm, made with the distribution's own tool.
   */
  private List<String> secure(Path distribution, Map<String, String> env) throws IOException {
    Path config = dir.resolve("config");
    if (!Files.exists(config.resolve("elasticsearch.yml"))) {
      try (var files = Files.walk(distribution.resolve("config"))) {
        for (Path from : files.toList()) {
          Path to = config.resolve(distribution.resolve("config").relativize(from).toString());
          if (Files.isDirectory(from)) {
            Files.createDirectories(to);
          } else {
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }
    Path certs = Files.createDirectories(config.resolve("certs"));
    Files.copy(tls.caPem(), certs.resolve("ca.pem"), StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        tls.serverCertificatePem(),
        certs.resolve("server.pem"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        tls.serverKeyPem(), certs.resolve("server-key.pem"), StandardCopyOption.REPLACE_EXISTING);
    env.put(engine.configFolderVariable(), config.toString());
    // The file realm holds this one user: written anew, with the current password.
    Files.writeString(config.resolve("users"), "");
    Files.writeString(config.resolve("users_roles"), "");
    processes.ownByServiceUser(dir);
    OsProcesses.run(
        name(),
        processes.unprivileged(
            List.of(
                distribution.resolve("bin/elasticsearch-users").toString(),
                "useradd",
                USER,
                "-p",
                password(),
                "-r",
                "superuser")),
        distribution,
        env,
        dir.resolve("launcher.log"),
        Duration.ofSeconds(60));
    return List.of(
        "-E", "xpack.security.enabled=true",
        "-E", "xpack.security.http.ssl.enabled=true",
        "-E", "xpack.security.http.ssl.key=certs/server-key.pem",
        "-E", "xpack.security.http.ssl.certificate=certs/server.pem",
        "-E", "xpack.security.http.ssl.certificate_authorities=certs/ca.pem",
        "-E", "xpack.security.transport.ssl.enabled=false");
  }

  @Override
  public Optional<Long> pid() {
    return OsProcesses.readPid(pidFile());
  }

  @Override
  public void stop() {
    OsProcesses.readPid(pidFile()).ifPresent(pid -> OsProcesses.stop(pid, Duration.ofSeconds(30)));
  }

  private Path pidFile() {
    return dir.resolve(engine.product().toLowerCase() + ".pid");
  }

  /**
   * One engine at a time on the search port: another engine this stack started there is not stopped
   * for this one (a job or test may be using it), the start is refused saying how to switch.
   */
  private void refuseAnotherEngineOfThisStack() {
    for (SearchEngine other : SearchEngine.values()) {
      if (other == engine) {
        continue;
      }
      SearchService running = new SearchService(other, settings, artifacts, processes, tls);
      if (running.holdsItsPort()) {
        throw new StackException(
            name()
                + ": port "
                + httpPort
                + " is taken by this stack's "
                + other.product()
                + " "
                + other.version(settings.versions())
                + " ("
                + other.key()
                + "), and "
                + engine.key()
                + " was asked for; one engine runs at a time: `weir stack down` first, then `weir stack up"
                + " --search "
                + engine.key()
                + "` (or use another WEIR_HOME and WEIR_ELASTICSEARCH_PORT)");
      }
    }
  }
}
