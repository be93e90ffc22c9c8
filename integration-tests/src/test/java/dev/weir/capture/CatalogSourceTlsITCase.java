package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import dev.weir.documents.DocumentOptions;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import dev.weir.it.UntrustedCa;
import io.debezium.jdbc.JdbcConnection;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connections Flink CDC opens for the capture itself (table discovery, chunk splitting, the
 * snapshot's reads), on the local stack's PostgreSQL over TLS: they check the server's certificate
 * as the catalog URL asks, like the replication connection and weir's own.
 */
@ExtendWith(LocalStackExtension.class)
class CatalogSourceTlsITCase {

  @TempDir Path dir;

  @Test
  void theSnapshotsConnectionsRefuseAServerTheUrlsCaDidNotSign() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    WeirConfig plain = TestDatabases.withFreshCatalog(LocalStackExtension.config(), "it.pool", run);
    String url = plain.get(DocumentOptions.CATALOG_URL) + "?sslmode=verify-full&sslrootcert=";
    String database = URI.create(url.substring("jdbc:".length())).getPath().substring(1);

    // First the untrusted CA: a pool made by a successful connection would be reused after it.
    String untrusted = url + UntrustedCa.pem(dir);
    // The connection reads the server's types as it opens.
    assertThatThrownBy(() -> open(plain, untrusted, database).close())
        .hasStackTraceContaining("unable to find valid certification path");

    try (JdbcConnection c =
        open(plain, url + LocalStackExtension.stack().tls().caPem(), database)) {
      List<Boolean> ssl =
          c.queryAndMap(
              "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
              rs -> {
                rs.next();
                return List.of(rs.getBoolean(1));
              });
      assertThat(ssl).containsExactly(true);
    }
  }

  /** A connection of the capture's dialect, as its snapshot reads open them. */
  private static JdbcConnection open(WeirConfig plain, String url, String database) {
    CatalogSource.ConfigFactory factory =
        CatalogSource.configFactory(
            plain.with(DocumentOptions.CATALOG_URL, url),
            database,
            "it_pool_unused",
            List.of("public.product"),
            new Properties());
    PostgresSourceConfig source = factory.create(0);
    return new CatalogSource.Dialect(factory).openJdbcConnection(source);
  }
}
