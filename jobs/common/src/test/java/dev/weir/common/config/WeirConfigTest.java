package dev.weir.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WeirConfigTest {

  @Test
  void aDurationSetInCodeIsReadBackAsThatDuration() {
    WeirConfig config =
        WeirConfig.from(Map.of(), Map.of())
            .with(WeirOptions.ELASTICSEARCH_SOCKET_TIMEOUT, Duration.ofSeconds(15));
    assertThat(config.get(WeirOptions.ELASTICSEARCH_SOCKET_TIMEOUT))
        .isEqualTo(Duration.ofSeconds(15));
  }

  @Test
  void aUrlThatCarriesAPasswordIsRefusedWithoutShowingIt() {
    for (String url :
        new String[] {
          "jdbc:postgresql://db/weir?sslmode=verify-full&sslpassword=s3cr3t",
          "jdbc:postgresql://db/weir?password=s3cr3t"
        }) {
      assertThatThrownBy(() -> WeirConfig.from(Map.of("postgres.url", url), Map.of()))
          .hasMessageContaining("postgres.url carries a secret")
          .hasMessageNotContaining("s3cr3t");
      assertThatThrownBy(
              () -> WeirConfig.from(Map.of(), Map.of()).with(WeirOptions.ARCHIVE_POSTGRES_URL, url))
          .hasMessageContaining("archive.postgres.url carries a secret");
    }
    assertThat(
            WeirConfig.from(
                    Map.of("postgres.url", "jdbc:postgresql://db/weir?sslmode=verify-full"),
                    Map.of())
                .get(WeirOptions.POSTGRES_URL))
        .endsWith("verify-full");
  }

  @Test
  void defaultsRunLocally() {
    WeirConfig config = WeirConfig.from(Map.of(), Map.of());
    assertThat(config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS)).isEqualTo("127.0.0.1:19092");
    assertThat(config.get(WeirOptions.POSTGRES_URL))
        .isEqualTo("jdbc:postgresql://127.0.0.1:15432/weir");
    assertThat(config.get(WeirOptions.ELASTICSEARCH_URL)).isEqualTo("http://127.0.0.1:19200");
    assertThat(config.get(WeirOptions.CHECKPOINT_INTERVAL)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void argumentsWinOverEnvironmentWhichWinsOverDefaults() {
    Map<String, String> env =
        Map.of(
            "KAFKA_BOOTSTRAP_SERVERS", "env:9092", "POSTGRES_JDBC_URL", "jdbc:postgresql://env/db");
    WeirConfig config =
        WeirConfig.from(
            Map.of("kafka.bootstrap-servers", "arg:9092", "checkpoint.interval", "5 s"), env);
    assertThat(config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS)).isEqualTo("arg:9092");
    assertThat(config.get(WeirOptions.POSTGRES_URL)).isEqualTo("jdbc:postgresql://env/db");
    assertThat(config.get(WeirOptions.CHECKPOINT_INTERVAL)).isEqualTo(Duration.ofSeconds(5));
    assertThat(
            WeirConfig.fromArgs(new String[] {"--parallelism", "3"}).get(WeirOptions.PARALLELISM))
        .isEqualTo(3);
  }

  @Test
  void secretsComeFromAFileOrTheEnvironmentAndAreNeverOptions(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("pg-password");
    Files.writeString(file, "from-file\n");
    assertThat(
            WeirConfig.from(
                    Map.of("postgres.password-file", file.toString()),
                    Map.of("PGPASSWORD", "from-env"))
                .postgresPassword())
        .isEqualTo("from-file");
    assertThat(WeirConfig.from(Map.of(), Map.of("PGPASSWORD", "from-env")).postgresPassword())
        .isEqualTo("from-env");
    assertThat(WeirConfig.from(Map.of(), Map.of("PGPASSWORD", "from-env")).asMap())
        .doesNotContainValue("from-env");
  }

  @Test
  void aMissingSecretFileIsAClearError(@TempDir Path dir) {
    WeirConfig config =
        WeirConfig.from(Map.of("postgres.password-file", dir.resolve("nope").toString()), Map.of());
    assertThatThrownBy(config::postgresPassword)
        .hasMessageContaining("nope")
        .hasMessageContaining("secret file");
  }

  @Test
  void anArgumentWithoutValueIsRejected() {
    assertThatThrownBy(() -> WeirConfig.fromArgs(new String[] {"--parallelism"}))
        .hasMessageContaining("--parallelism needs a value");
  }
}
