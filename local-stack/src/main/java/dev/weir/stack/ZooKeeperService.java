package dev.weir.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A single ZooKeeper server: the high-availability store of the local Flink cluster (leader
 * election, submitted jobs, checkpoint pointers), so that a killed JobManager is replaced and its
 * jobs resume from their last checkpoint, as on a production cluster. Not part of {@link
 * LocalStack#up()}: the cluster starts it when it runs with high availability.
 */
final class ZooKeeperService implements LocalService {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final StackSettings settings;
  private final Artifacts artifacts;
  private final Path dir;

  ZooKeeperService(StackSettings settings, Artifacts artifacts) {
    this.settings = settings;
    this.artifacts = artifacts;
    this.dir = settings.home().resolve("zookeeper");
  }

  @Override
  public String name() {
    return "ZooKeeper";
  }

  @Override
  public int port() {
    return settings.zookeeperPort();
  }

  @Override
  public String address() {
    return StackSettings.HOST + ":" + port();
  }

  @Override
  public Path log() {
    return dir.resolve("zookeeper.log");
  }

  @Override
  public boolean isUp() {
    return OsProcesses.portOpen(port()) && holdsItsPort();
  }

  @Override
  public boolean start() {
    if (isUp()) {
      return false;
    }
    if (OsProcesses.portOpen(port())) {
      throw new StackException(
          name()
              + ": port "
              + port()
              + " is taken by a process this stack did not start (it takes WEIR_KAFKA_PORT + 3)");
    }
    List<Path> classPath =
        artifacts.classPath(
            List.of(
                "org.apache.zookeeper:zookeeper:" + settings.versions().zookeeper(),
                "org.apache.zookeeper:zookeeper-jute:" + settings.versions().zookeeper(),
                // The server needs these; ZooKeeper's pom declares them provided.
                "io.dropwizard.metrics:metrics-core:4.1.12.1",
                "org.xerial.snappy:snappy-java:1.1.10.5",
                "org.slf4j:slf4j-reload4j:" + settings.versions().slf4j()));
    try {
      Files.createDirectories(dir.resolve("data"));
      Path config = dir.resolve("zoo.cfg");
      Files.writeString(
          config,
          String.join(
              "\n",
              "dataDir=" + dir.resolve("data"),
              "clientPortAddress=" + StackSettings.HOST,
              "clientPort=" + port(),
              "tickTime=2000",
              "maxClientCnxns=0",
              // No admin web server (it would take port 8080).
              "admin.enableServer=false",
              "4lw.commands.whitelist=ruok",
              ""));
      Path log4j = dir.resolve("log4j.properties");
      Files.writeString(
          log4j,
          String.join(
              "\n",
              "log4j.rootLogger=WARN, stdout",
              "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
              "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
              "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n",
              "log4j.logger.org.apache.zookeeper.server.ZooKeeperServerMain=INFO",
              ""));
      Process process =
          OsProcesses.startDetached(
              settings.java(
                  "-Xms64m",
                  "-Xmx256m",
                  "-Dlog4j.configuration=file:" + log4j,
                  "-cp",
                  classPath.stream().map(Path::toString).collect(Collectors.joining(":")),
                  "org.apache.zookeeper.server.ZooKeeperServerMain",
                  config.toString()),
              dir,
              Map.of(),
              log());
      Files.writeString(pidFile(), Long.toString(process.pid()));
      OsProcesses.awaitReady(
          name(), START_TIMEOUT, log(), Optional.of(process.toHandle()), this::isUp);
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
    try {
      Files.deleteIfExists(pidFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path pidFile() {
    return dir.resolve("zookeeper.pid");
  }
}
