package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OsProcessesTest {

  @Test
  void aServiceThatNeverComesUpNamesItselfTheWaitAndItsLog() {
    Path log = Path.of("/var/weir/kafka.log");
    assertThatThrownBy(
            () ->
                OsProcesses.awaitReady(
                    "Kafka", Duration.ofMillis(600), log, Optional.empty(), () -> false))
        .isInstanceOf(StackException.class)
        .hasMessageMatching(
            "Kafka was not ready after waiting \\d+\\.\\d s; log: /var/weir/kafka.log");
  }

  @Test
  void aServiceWhoseProcessDiesFailsAtOnce(@TempDir Path dir) throws Exception {
    Process dead = new ProcessBuilder("true").start();
    dead.waitFor();
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                OsProcesses.awaitReady(
                    "PostgreSQL",
                    Duration.ofSeconds(30),
                    dir.resolve("pg.log"),
                    Optional.of(dead.toHandle()),
                    () -> false))
        .hasMessageContaining("PostgreSQL exited during start-up")
        .hasMessageContaining("pg.log");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aFailingCommandReportsItsExitCodeAndLog(@TempDir Path dir) {
    assertThatThrownBy(
            () ->
                OsProcesses.run(
                    "Elasticsearch",
                    List.of("false"),
                    dir,
                    Map.of(),
                    dir.resolve("x.log"),
                    Duration.ofSeconds(5)))
        .hasMessageContaining("Elasticsearch")
        .hasMessageContaining("exit code 1")
        .hasMessageContaining("x.log");
  }

  @Test
  void stopEndsAProcessTree(@TempDir Path dir) throws Exception {
    Process process =
        OsProcesses.startDetached(
            List.of("sh", "-c", "sleep 60 & sleep 60"), dir, Map.of(), dir.resolve("sleep.log"));
    Thread.sleep(300);
    List<ProcessHandle> tree = process.toHandle().descendants().toList();
    assertThat(OsProcesses.stop(process.pid(), Duration.ofSeconds(5))).isTrue();
    assertThat(tree).noneMatch(ProcessHandle::isAlive);
  }

  @Test
  void aPortIsListenedOnByTheProcessThatOpenedItNotByAnother(@TempDir Path dir) throws Exception {
    assumeThat(Path.of("/proc/net/tcp")).exists();
    Process other =
        OsProcesses.startDetached(List.of("sleep", "30"), dir, Map.of(), dir.resolve("sleep.log"));
    try (ServerSocket listener =
        new ServerSocket(0, 1, InetAddress.getByName(StackSettings.HOST))) {
      int port = listener.getLocalPort();
      assertThat(OsProcesses.listensOn(ProcessHandle.current().pid(), port)).contains(true);
      assertThat(OsProcesses.listensOn(other.pid(), port)).contains(false);
    } finally {
      OsProcesses.stop(other.pid(), Duration.ofSeconds(5));
    }
  }

  @Test
  void listeningSocketsAreReadFromTheKernelsTable(@TempDir Path dir) throws Exception {
    Path table = dir.resolve("tcp");
    Files.writeString(
        table,
        String.join(
            "\n",
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid "
                + " timeout inode",
            // 127.0.0.1:19092 listening; the same port connected; another port listening
            "   0: 0100007F:4A94 00000000:0000 0A 00000000:00000000 00:00000000 00000000  0 0"
                + " 4711 1 0000000000000000 100 0 0 10 0",
            "   1: 0100007F:4A94 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  0 0"
                + " 4712 1 0000000000000000 20 4 30 10 -1",
            "   2: 0100007F:3C50 00000000:0000 0A 00000000:00000000 00:00000000 00000000  0 0"
                + " 4713 1 0000000000000000 100 0 0 10 0",
            ""));
    assertThat(OsProcesses.listeningSockets(table, 19092)).containsExactly("socket:[4711]");
    assertThat(OsProcesses.listeningSockets(dir.resolve("missing"), 19092)).isEmpty();
  }

  @Test
  void portsComeFromConfiguration() {
    Properties p = new Properties();
    p.setProperty("weir.kafka.port", "29092");
    StackSettings settings =
        StackSettings.from(p, Map.of("WEIR_POSTGRES_PORT", "25432", "WEIR_HOME", "/tmp/x"));
    assertThat(settings.kafkaPort()).isEqualTo(29092);
    assertThat(settings.kafkaControllerPort()).isEqualTo(29093);
    assertThat(settings.postgresPort()).isEqualTo(25432);
    assertThat(settings.elasticsearchPort()).isEqualTo(19200);
    assertThat(settings.home()).isEqualTo(Path.of("/tmp/x"));
    assertThatThrownBy(
            () -> StackSettings.from(new Properties(), Map.of("WEIR_KAFKA_PORT", "http")))
        .hasMessageContaining("port must be a number");
  }

  @Test
  void everyJavaServiceStartsWithTheStacksJavaOptions() {
    Properties p = new Properties();
    p.setProperty("weir.stack.java-options", " -XX:TieredStopAtLevel=1  -Dx=y ");
    List<String> command = StackSettings.from(p, Map.of()).java("-Xmx256m", "-cp", "a.jar");
    assertThat(command.get(0)).endsWith("/bin/java");
    assertThat(command.subList(1, command.size()))
        .containsExactly("-XX:TieredStopAtLevel=1", "-Dx=y", "-Xmx256m", "-cp", "a.jar");
    assertThat(
            StackSettings.from(new Properties(), Map.of("WEIR_STACK_JAVA_OPTIONS", "-Da=b"))
                .javaOptions())
        .containsExactly("-Da=b");
    assertThat(StackSettings.from(new Properties(), Map.of()).java("-cp", "a.jar")).hasSize(3);
  }
}
