package dev.weir.common.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.weir.common.config.WeirConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.Test;

class MigrationsTest {

  private static final Map<String, String> SHORT_TIMEOUTS =
      Map.of(
          "postgres.statement-timeout", "1 s",
          "postgres.lock-timeout", "500 ms",
          "postgres.socket-timeout", "2 s",
          "postgres.connect-timeout", "1 s");

  @Test
  void flywayConnectsWithTheTimeoutsOfTheJobsOwnConnections() {
    PostgresTimeouts timeouts =
        PostgresTimeouts.of(
            WeirConfig.from(
                Map.of(
                    "postgres.statement-timeout", "5 s",
                    "postgres.lock-timeout", "1 s",
                    "postgres.socket-timeout", "6 s",
                    "postgres.connect-timeout", "2 s"),
                Map.of()));
    FluentConfiguration flyway =
        Migrations.configure(
            Migrations.WEIR, "jdbc:postgresql://db/weir", "weir", "secret", timeouts);
    assertThat(flyway.getUrl()).isEqualTo("jdbc:postgresql://db/weir");
    // The driver's side: a database that does not answer fails the start instead of hanging it.
    assertThat(flyway.getJdbcProperties())
        .containsEntry("socketTimeout", "6")
        .containsEntry("connectTimeout", "2");
    // PostgreSQL's side, so that the socket timeout never cuts a statement still running there.
    assertThat(flyway.getInitSql())
        .isEqualTo("SET statement_timeout = 5000; SET lock_timeout = 1000");
  }

  @Test
  void aDatabaseThatNeverAnswersFailsTheMigrationsInsteadOfHangingThem() throws Exception {
    // Connections are accepted (the listen backlog) but never answered. Without TLS: the driver
    // gives up on an unanswered TLS request by itself (sslResponseTimeout), but not on a server
    // that goes silent later, e.g. after the handshake.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Map<String, String> arguments = new HashMap<>(SHORT_TIMEOUTS);
      arguments.put(
          "postgres.url",
          "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/weir?sslmode=disable");
      WeirConfig config = WeirConfig.from(arguments, Map.of("PGPASSWORD", "secret"));
      assertTimeoutPreemptively(
          Duration.ofSeconds(20),
          () ->
              assertThatThrownBy(() -> Migrations.apply(config))
                  .isInstanceOf(FlywayException.class)
                  .hasRootCauseInstanceOf(SocketTimeoutException.class));
    }
  }
}
