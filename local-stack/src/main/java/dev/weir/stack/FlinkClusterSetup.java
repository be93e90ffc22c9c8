package dev.weir.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a {@link FlinkCluster}'s folder holds for its processes: the class path (Flink's jars from
 * Maven Central), its configuration and logging files, and the Prometheus reporter plugin.
 */
final class FlinkClusterSetup {

  /** Flink's own list for Java 17 (its default configuration's env.java.opts.all). */
  static final List<String> JAVA_17_OPENS =
      List.of(
          "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
          "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
          "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.text=ALL-UNNAMED",
          "--add-opens=java.base/java.time=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

  private final StackSettings settings;
  private final Artifacts artifacts;
  private final int restPort;
  private final Path dir;

  /** The high-availability store, when the cluster runs with one; else null. */
  private final ZooKeeperService zookeeper;

  /** Options written over the cluster's own. */
  private final Map<String, String> configuration;

  FlinkClusterSetup(
      StackSettings settings,
      Artifacts artifacts,
      int restPort,
      Path dir,
      ZooKeeperService zookeeper,
      Map<String, String> configuration) {
    this.settings = settings;
    this.configuration = Map.copyOf(configuration);
    this.artifacts = artifacts;
    this.restPort = restPort;
    this.dir = dir;
    this.zookeeper = zookeeper;
  }

  List<Path> classPath() {
    String flink = settings.versions().flink();
    String log4j = settings.versions().log4j();
    return artifacts.classPath(
        List.of(
            "org.apache.flink:flink-runtime:" + flink,
            "org.apache.flink:flink-runtime-web:" + flink,
            "org.apache.flink:flink-clients:" + flink,
            "org.apache.flink:flink-streaming-java:" + flink,
            "org.apache.flink:flink-connector-base:" + flink,
            "org.apache.flink:flink-connector-files:" + flink,
            // In Flink's distribution, as in the image the manifests deploy: the jobs' RocksDB
            // state backend, named in a cluster's configuration.
            "org.apache.flink:flink-statebackend-rocksdb:" + flink,
            "org.apache.logging.log4j:log4j-slf4j-impl:" + log4j,
            "org.apache.logging.log4j:log4j-api:" + log4j,
            "org.apache.logging.log4j:log4j-core:" + log4j,
            "org.apache.logging.log4j:log4j-1.2-api:" + log4j,
            // In lib/, loaded parent-first (see configYaml), as Flink advises for JDBC drivers.
            "org.postgresql:postgresql:" + settings.versions().postgresDriver()));
  }

  /**
   * Flink's Prometheus reporter as a plugin (its own class loader, as in the image of k8s/): its
   * jar from Maven Central in plugins/metrics-prometheus/.
   */
  void installPrometheusReporter() throws IOException {
    Path jar =
        artifacts.resolve(
            "org.apache.flink:flink-metrics-prometheus:" + settings.versions().flink());
    Path plugin = dir.resolve("plugins").resolve("metrics-prometheus");
    Files.createDirectories(plugin);
    Files.copy(jar, plugin.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
  }

  /** The cluster's options, those given to the cluster in place of its own of the same key. */
  String configYaml() {
    // Flink refuses a key given twice.
    String own =
        ownConfigYaml()
            .lines()
            .filter(line -> !configuration.containsKey(line.split(":", 2)[0].trim()))
            .collect(Collectors.joining("\n", "", "\n"));
    return own
        + new TreeMap<>(configuration)
            .entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue() + "\n")
                .collect(Collectors.joining());
  }

  private String ownConfigYaml() {
    return String.join(
        "\n",
        "# Written by weir cluster up; a standalone session cluster on 127.0.0.1.",
        "jobmanager.rpc.address: 127.0.0.1",
        "jobmanager.rpc.port: " + (restPort + 1),
        "jobmanager.bind-host: 127.0.0.1",
        "taskmanager.bind-host: 127.0.0.1",
        "taskmanager.host: 127.0.0.1",
        "rest.address: 127.0.0.1",
        "rest.bind-address: 127.0.0.1",
        "rest.port: " + restPort,
        "jobmanager.memory.process.size: 1280m",
        "taskmanager.memory.process.size: 2304m",
        // Spare slots: a job at parallelism 2 spread over two TaskManagers uses one slot on each;
        // when one TaskManager dies the job restarts at once in the survivor's spare slots, where
        // its code is already loaded, instead of waiting for a replacement JVM to start and load
        // it. The replacement joins as the next spare. On Kubernetes a
        // redundant TaskManager pod (k8s/base) spares the wait for a pod, not the code loading.
        "taskmanager.numberOfTaskSlots: 4",
        // Every job on a session cluster loads its own copy of the job jar's classes, and a
        // process keeps an ended job's until a collection finds them unreachable. With four slots
        // and a job submitted every minute, Flink's default metaspace comes close, and a
        // TaskManager past it dies of "OutOfMemoryError: Metaspace". Kubernetes deployments run
        // one job per cluster and keep the default. (The process sizes above grew by as much, so
        // heap and managed memory stay about as they were.)
        "taskmanager.memory.jvm-metaspace.size: 512m",
        "jobmanager.memory.jvm-metaspace.size: 512m",
        "parallelism.default: 1",
        // pgjdbc registers itself with the JVM-wide DriverManager, which then holds the class
        // loader of whichever job loaded it: every submission of a job that reads PostgreSQL
        // (Flink CDC's enumerator in the JobManager too) would leak its classes until the
        // metaspace runs out. Loaded once from the cluster's class path instead (Flink's advice
        // for JDBC drivers on session clusters); the same version the jobs are built with.
        "classloader.parent-first-patterns.additional: org.postgresql.",
        // Tasks spread over the TaskManagers, as over pods: losing one loses part of the job.
        "cluster.evenly-spread-out-slots: true",
        // A killed TaskManager is noticed within seconds, not after Flink's default timeout.
        "heartbeat.interval: 1000",
        "heartbeat.timeout: 5000",
        "execution.checkpointing.dir: file://" + dir.resolve("checkpoints"),
        "execution.checkpointing.savepoint-dir: file://" + dir.resolve("savepoints"),
        "io.tmp.dirs: " + dir.resolve("tmp"),
        // A TaskManager keeps an ended job's jar for an hour by default: dozens of large jars in
        // a test run that submits a job every minute.
        "blob.service.cleanup.interval: 60",
        "web.upload.dir: " + dir.resolve("upload"),
        // Every process's metrics, the jobs' own among them, for Prometheus to scrape (as on
        // Kubernetes, where each pod has port 9249 to itself).
        "metrics.reporter.prom.factory.class:"
            + " org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
        "metrics.reporter.prom.port: " + FlinkCluster.METRICS_PORTS,
        highAvailability(),
        "");
  }

  /**
   * ZooKeeper high availability: a new cluster id per {@link FlinkCluster#up}, so that a cluster
   * started again does not take over the jobs of one stopped before.
   */
  private String highAvailability() {
    if (zookeeper == null) {
      return "# no high availability";
    }
    return String.join(
        "\n",
        "high-availability.type: zookeeper",
        "high-availability.zookeeper.quorum: " + zookeeper.address(),
        "high-availability.zookeeper.path.root: /weir-flink",
        // How long a dead JobManager holds the leadership: Flink's default, capped by ZooKeeper's
        // tick limit, is far over the design's time to run again; the Kubernetes HA lease's
        // length brings it under with room for pauses.
        "high-availability.zookeeper.client.session-timeout: 15000",
        "high-availability.cluster-id: /" + restPort + "-" + System.currentTimeMillis(),
        "high-availability.storageDir: file://" + dir.resolve("ha"));
  }

  static String log4j() {
    return String.join(
        "\n",
        "rootLogger.level = INFO",
        "rootLogger.appenderRef.console.ref = ConsoleAppender",
        "appender.console.name = ConsoleAppender",
        "appender.console.type = CONSOLE",
        "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n",
        "logger.kafka.name = org.apache.kafka",
        "logger.kafka.level = WARN",
        "");
  }
}
