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
 * Elasticsearch 8 from the integ-test zip on Maven Central: single node on 127.0.0.1. It has no
 * scripting, ingest or analysis-common modules; mappings stay on core types. The stack's node has
 * security off; {@link #secured} is a second node as production clusters are set up (HTTPS with the
 * stack's certificate, a user and password of the file realm), started on demand.
 */
final class ElasticsearchService implements LocalService {

  /** The secured node's user (a superuser of its file realm). */
  static final String USER = "weir";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final StackSettings settings;
  private final Artifacts artifacts;
  private final OsProcesses processes;
  private final Tls tls; // null: security off
  private final Path dir;
  private final int httpPort;
  private final int transportPort;
  private final HttpClient http;

  ElasticsearchService(StackSettings settings, Artifacts artifacts, OsProcesses processes) {
    this(settings, artifacts, processes, null);
  }

  private ElasticsearchService(
      StackSettings settings, Artifacts artifacts, OsProcesses processes, Tls tls) {
    this.settings = settings;
    this.artifacts = artifacts;
    this.processes = processes;
    this.tls = tls;
    this.dir = settings.home().resolve(tls == null ? "elasticsearch" : "elasticsearch-secured");
    this.httpPort = settings.elasticsearchPort() + (tls == null ? 0 : 1);
    this.transportPort = settings.elasticsearchTransportPort() + (tls == null ? 0 : 1);
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
    if (tls != null) {
      client.sslContext(tls.clientContext());
    }
    this.http = client.build();
  }

  /** The secured node: HTTPS on the port after the plain node's, user {@link #USER}. */
  static ElasticsearchService secured(
      StackSettings settings, Artifacts artifacts, OsProcesses processes, Tls tls) {
    return new ElasticsearchService(settings, artifacts, processes, tls);
  }

  @Override
  public String name() {
    return tls == null ? "Elasticsearch" : "Elasticsearch (secured)";
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
      throw new StackException(
          name()
              + ": port "
              + httpPort
              + (healthy()
                  ? " is taken by an Elasticsearch this stack did not start (its pid file: "
                      + pidFile()
                      + ")"
                  : " is taken by something that is not a healthy Elasticsearch")
              + " (set WEIR_ELASTICSEARCH_PORT to use another port)");
    }
    String version = settings.versions().elasticsearch();
    Path distribution = dir.resolve("dist-" + version);
    if (!Files.exists(distribution.resolve(".unpacked"))) {
      Path zip =
          artifacts.resolve(
              "org.elasticsearch.distribution.integ-test-zip:elasticsearch:zip:" + version);
      Archives.unzipOnce(zip, distribution);
    }
    try {
      for (String sub : List.of("data", "logs", "tmp", "home")) {
        Files.createDirectories(dir.resolve(sub));
      }
      Files.deleteIfExists(pidFile());
      Map<String, String> env = new HashMap<>();
      env.put("ES_JAVA_HOME", System.getProperty("java.home"));
      env.put("ES_JAVA_OPTS", "-Xms512m -Xmx1g");
      env.put("ES_TMPDIR", dir.resolve("tmp").toString());
      env.put("HOME", dir.resolve("home").toString());
      List<String> security = List.of("-E", "xpack.security.enabled=false");
      if (tls != null) {
        security = secure(distribution, env);
      }
      processes.ownByServiceUser(dir);
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              distribution.resolve("bin/elasticsearch").toString(),
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
      command.addAll(security);
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
                  "Elasticsearch launcher exited with code "
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
    env.put("ES_PATH_CONF", config.toString());
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
    return dir.resolve("elasticsearch.pid");
  }
}
