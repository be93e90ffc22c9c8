package dev.weir.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Elasticsearch 8 from the integ-test zip on Maven Central: single node, security off, on
 * 127.0.0.1. It has no scripting, ingest or analysis-common modules; mappings stay on core types.
 */
final class ElasticsearchService implements LocalService {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final StackSettings settings;
  private final Artifacts artifacts;
  private final OsProcesses processes;
  private final Path dir;

  ElasticsearchService(StackSettings settings, Artifacts artifacts, OsProcesses processes) {
    this.settings = settings;
    this.artifacts = artifacts;
    this.processes = processes;
    this.dir = settings.home().resolve("elasticsearch");
  }

  @Override
  public String name() {
    return "Elasticsearch";
  }

  @Override
  public String address() {
    return "http://" + StackSettings.HOST + ":" + settings.elasticsearchPort();
  }

  @Override
  public Path log() {
    return dir.resolve("logs").resolve("weir.log");
  }

  @Override
  public boolean isUp() {
    // GET / answers 405 on the integ-test distribution: ask the cluster health instead.
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(address() + "/_cluster/health"))
                  .timeout(Duration.ofSeconds(2))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
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
    if (OsProcesses.portOpen(settings.elasticsearchPort())) {
      throw new StackException(
          "Elasticsearch: port "
              + settings.elasticsearchPort()
              + " is taken by something that is not a healthy Elasticsearch (set WEIR_ELASTICSEARCH_PORT to use another port)");
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
      processes.ownByServiceUser(dir);
      List<String> command =
          processes.unprivileged(
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
                  "http.port=" + settings.elasticsearchPort(),
                  "-E",
                  "transport.port=" + settings.elasticsearchTransportPort(),
                  "-E",
                  "xpack.security.enabled=false",
                  "-E",
                  "path.data=" + dir.resolve("data"),
                  "-E",
                  "path.logs=" + dir.resolve("logs"),
                  // A nearly full developer disk must not turn the local indices read-only.
                  "-E",
                  "cluster.routing.allocation.disk.threshold_enabled=false"));
      Map<String, String> env =
          Map.of(
              "ES_JAVA_HOME", System.getProperty("java.home"),
              "ES_JAVA_OPTS", "-Xms512m -Xmx1g",
              "ES_TMPDIR", dir.resolve("tmp").toString(),
              "HOME", dir.resolve("home").toString());
      Path launcherLog = dir.resolve("launcher.log");
      Process launcher = OsProcesses.startDetached(command, distribution, env, launcherLog);
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
