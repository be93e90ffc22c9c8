package dev.weir.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/** A single-node Kafka broker in KRaft mode (broker and controller in one JVM). */
final class KafkaService implements LocalService {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  /** The SCRAM user of the secured listener; its password is made on first start. */
  static final String USER = "weir";

  private final StackSettings settings;
  private final Artifacts artifacts;
  private final Tls tls;
  private final Path dir;

  KafkaService(StackSettings settings, Artifacts artifacts, Tls tls) {
    this.settings = settings;
    this.artifacts = artifacts;
    this.tls = tls;
    this.dir = settings.home().resolve("kafka");
  }

  /** The secured listener: SASL_SSL with SCRAM-SHA-512, the stack's certificate. */
  String secureAddress() {
    return StackSettings.HOST + ":" + settings.kafkaSecurePort();
  }

  /** The password of {@link #USER} on the secured listener (generated, kept in the folder). */
  String password() {
    return Secrets.generated(dir.resolve("password"));
  }

  @Override
  public String name() {
    return "Kafka";
  }

  @Override
  public int port() {
    return settings.kafkaPort();
  }

  @Override
  public String address() {
    return StackSettings.HOST + ":" + settings.kafkaPort();
  }

  @Override
  public Path log() {
    return dir.resolve("kafka.log");
  }

  /**
   * A broker answers on the port and it is this stack's: the one its pid file names listens there
   * (where /proc cannot tell, a broker on the port of a live stack process is taken for it).
   */
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
              + " is taken by a process this stack did not start (its Kafka's pid file: "
              + pidFile()
              + ") (set WEIR_KAFKA_PORT to use another port)");
    }
    String v = settings.versions().kafka();
    List<Path> classPath =
        artifacts.classPath(
            List.of(
                "org.apache.kafka:kafka_2.13:" + v,
                "org.apache.kafka:kafka-tools:" + v,
                "org.slf4j:slf4j-reload4j:" + settings.versions().slf4j()));
    try {
      Files.createDirectories(dir);
      Path properties = dir.resolve("server.properties");
      Files.writeString(properties, serverProperties());
      Path log4j = dir.resolve("log4j.properties");
      Files.writeString(
          log4j,
          String.join(
              "\n",
              "log4j.rootLogger=INFO, stdout",
              "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
              "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
              "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n",
              "log4j.logger.kafka.log.LogCleaner=WARN",
              "log4j.logger.org.apache.kafka.storage=WARN",
              ""));
      String cp = classPath.stream().map(Path::toString).collect(Collectors.joining(":"));
      if (!Files.exists(dir.resolve("data").resolve("meta.properties"))) {
        // Format the storage once; with static controller voters, without --standalone.
        OsProcesses.run(
            name(),
            settings.java(
                "-cp",
                cp,
                "kafka.tools.StorageTool",
                "format",
                "-t",
                clusterId(),
                "-c",
                properties.toString(),
                "--ignore-formatted"),
            dir,
            Map.of(),
            log(),
            Duration.ofSeconds(60));
      }
      long logStart = Files.exists(log()) ? Files.size(log()) : 0;
      List<String> command = settings.java("-Xms256m", "-Xmx512m", "-XX:+UseG1GC");
      command.add("-Dlog4j.configuration=file:" + log4j);
      command.addAll(List.of("-cp", cp, "kafka.Kafka", properties.toString()));
      Process process = OsProcesses.startDetached(command, dir, Map.of(), log());
      Files.writeString(pidFile(), Long.toString(process.pid()));
      OsProcesses.awaitReady(
          name(),
          START_TIMEOUT,
          log(),
          Optional.of(process.toHandle()),
          () -> isUp() && logSince(logStart).contains("Kafka Server started"));
      // The secured listener's user, as an operator adds one (kafka-configs on the plain port).
      OsProcesses.run(
          name(),
          settings.java(
              "-cp",
              cp,
              "kafka.admin.ConfigCommand",
              "--bootstrap-server",
              address(),
              "--alter",
              "--entity-type",
              "users",
              "--entity-name",
              USER,
              "--add-config",
              "SCRAM-SHA-512=[iterations=8192,password=" + password() + "]"),
          dir,
          Map.of(),
          log(),
          Duration.ofSeconds(60));
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
    return dir.resolve("kafka.pid");
  }

  private String clusterId() throws IOException {
    Path file = dir.resolve("cluster.id");
    // An id left by an older version may start with '-' and so never format: draw again.
    if (!Files.exists(file) || Files.readString(file).startsWith("-")) {
      Files.writeString(file, newClusterId());
    }
    return Files.readString(file).trim();
  }

  /**
   * 16 random bytes, URL-safe base64 without padding, as Kafka wants. Like Kafka's own {@code
   * Uuid.randomUuid()}, never one starting with '-': the storage tool would read it as an option.
   */
  static String newClusterId() {
    while (true) {
      UUID u = UUID.randomUUID();
      ByteBuffer b = ByteBuffer.allocate(16);
      b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
      String id = Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
      if (!id.startsWith("-")) {
        return id;
      }
    }
  }

  private String serverProperties() {
    String host = StackSettings.HOST;
    int port = settings.kafkaPort();
    int controller = settings.kafkaControllerPort();
    String listeners =
        "PLAINTEXT://"
            + host
            + ":"
            + port
            + ",CONTROLLER://"
            + host
            + ":"
            + controller
            + ",SASL_SSL://"
            + secureAddress();
    return String.join(
        "\n",
        "process.roles=broker,controller",
        "node.id=1",
        "controller.quorum.voters=1@" + host + ":" + controller,
        "listeners=" + listeners,
        "advertised.listeners=" + listeners,
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL",
        // The secured listener, as production brokers are set up: SCRAM users over TLS.
        "listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512",
        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config="
            + "org.apache.kafka.common.security.scram.ScramLoginModule required;",
        "listener.name.sasl_ssl.ssl.keystore.type=PKCS12",
        "listener.name.sasl_ssl.ssl.keystore.location=" + tls.serverP12(),
        "listener.name.sasl_ssl.ssl.keystore.password=" + Tls.STORE_PASSWORD,
        "listener.name.sasl_ssl.ssl.key.password=" + Tls.STORE_PASSWORD,
        "controller.listener.names=CONTROLLER",
        "inter.broker.listener.name=PLAINTEXT",
        "log.dirs=" + dir.resolve("data"),
        "num.partitions=2",
        // As production brokers should be: a topic appears only when a job or loader creates it and
        // waits for its leaders (KafkaTopics.createTopicsIfMissing); a producer racing the broker's
        // own creation can lose records (KAFKA-15591).
        "auto.create.topics.enable=false",
        "offsets.topic.replication.factor=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "min.insync.replicas=1",
        "default.replication.factor=1",
        "group.initial.rebalance.delay.ms=0",
        // Flink's exactly-once sink keeps transactions open across checkpoints.
        "transaction.max.timeout.ms=3600000",
        "log.retention.hours=168",
        "");
  }

  private String logSince(long offset) {
    try {
      byte[] all = Files.readAllBytes(log());
      return new String(
          all,
          (int) Math.min(offset, all.length),
          (int) Math.max(0, all.length - offset),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
