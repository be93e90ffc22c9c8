package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder.PostgresIncrementalSource;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfig;
import org.apache.flink.cdc.debezium.JsonDebeziumDeserializationSchema;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogSourceTest {

  @Test
  void theCatalogUrlsTlsParametersBecomeDebeziumsAndAnyOtherIsAClearError() {
    assertThat(CatalogSource.tlsProperties("jdbc:postgresql://db:5432/catalog")).isEmpty();
    assertThat(
            CatalogSource.tlsProperties(
                "jdbc:postgresql://db/catalog?sslmode=verify-full&sslrootcert=%2Fetc%2Fweir%2Fca.pem"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "database.sslmode", "verify-full",
                "database.sslrootcert", "/etc/weir/ca.pem"));
    assertThatThrownBy(
            () ->
                CatalogSource.tlsProperties(
                    "jdbc:postgresql://db/catalog?sslmode=require&loginTimeout=5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cdc-catalog: catalog.postgres.url has the parameter 'loginTimeout', which the capture"
                + " cannot use; it takes sslmode, sslrootcert, sslcert, sslkey");
  }

  /**
   * What Flink ships to the JobManager and the TaskManagers holds no password; there, the source is
   * made whole again with the password of that process (here: the local stack's file of the weir
   * home the test points to).
   */
  @Test
  void theSourceTravelsWithoutThePasswordAndIsRebuiltWithTheReceiversOwn(@TempDir Path home)
      throws Exception {
    WeirConfig config =
        WeirConfig.from(
            Map.of("catalog.postgres.url", "jdbc:postgresql://db:6543/shop?sslmode=verify-full"),
            Map.of("PGPASSWORD", "client-secret-4711", "PGUSER", "capture"));
    PostgresIncrementalSource<String> source =
        CatalogSource.create(
            config,
            "shop",
            "shop_slot",
            List.of("public.product"),
            new Properties(),
            new JsonDebeziumDeserializationSchema());

    byte[] shipped = InstantiationUtil.serializeObject(source);

    assertThat(new String(shipped, StandardCharsets.ISO_8859_1))
        .contains("shop_slot")
        .doesNotContain("client-secret-4711");
    Files.createDirectories(home.resolve("postgres"));
    Files.writeString(home.resolve("postgres/password"), "receiver-secret");
    String before = System.setProperty("weir.home", home.toString());
    try {
      assertThat(InstantiationUtil.<Object>deserializeObject(shipped, getClass().getClassLoader()))
          .isInstanceOf(PostgresIncrementalSource.class);
    } finally {
      if (before == null) {
        System.clearProperty("weir.home");
      } else {
        System.setProperty("weir.home", before);
      }
    }
  }

  @Test
  void theConfigHasTheCatalogsSettingsAndThePasswordOfTheProcessThatMakesIt() {
    WeirConfig config =
        WeirConfig.from(
            Map.of("catalog.postgres.url", "jdbc:postgresql://db/shop?sslmode=verify-full"),
            Map.of("PGPASSWORD", "secret-4711", "PGUSER", "capture"));
    Properties debezium = new Properties();
    debezium.setProperty("decimal.handling.mode", "string");

    PostgresSourceConfig made =
        CatalogSource.configFactory(
                config,
                "library",
                "weir_library",
                List.of("public.product", "public.brand"),
                debezium)
            .create(0);

    assertThat(made.getHostname()).isEqualTo("db");
    assertThat(made.getPort()).isEqualTo(5432);
    assertThat(made.getDatabaseList())
        .as("the definition's, not the URL's")
        .containsExactly("library");
    assertThat(made.getDbzProperties()).containsEntry("slot.name", "weir_library");
    assertThat(made.getTableList()).containsExactly("public.product", "public.brand");
    assertThat(made.getUsername()).isEqualTo("capture");
    assertThat(made.getPassword()).isEqualTo("secret-4711");
    assertThat(made.getDbzProperties())
        .containsEntry("database.sslmode", "verify-full")
        .containsEntry("decimal.handling.mode", "string")
        .containsEntry("plugin.name", "pgoutput");
  }

  @Test
  void flinkCdcsConnectionPoolConnectsWithTheCatalogUrlsTlsParameters() {
    WeirConfig config =
        WeirConfig.from(
            Map.of(
                "catalog.postgres.url",
                "jdbc:postgresql://db:6543/shop?sslmode=verify-full&sslrootcert=/etc/weir/tls/ca%20file.crt"),
            Map.of("PGPASSWORD", "secret-4711", "PGUSER", "capture"));
    CatalogSource.ConfigFactory factory =
        CatalogSource.configFactory(
            config, "library", "weir_library", List.of("public.product"), new Properties());

    String poolUrl =
        new CatalogSource.Dialect(factory)
            .getPooledDataSourceFactory()
            .getJdbcUrl(factory.create(0));

    assertThat(poolUrl)
        .isEqualTo(
            "jdbc:postgresql://db:6543/library?sslmode=verify-full"
                + "&sslrootcert=%2Fetc%2Fweir%2Ftls%2Fca+file.crt");
    WeirConfig plain =
        WeirConfig.from(
            Map.of("catalog.postgres.url", "jdbc:postgresql://db/shop"),
            Map.of("PGPASSWORD", "secret-4711"));
    CatalogSource.ConfigFactory noTls =
        CatalogSource.configFactory(
            plain, "shop", "weir_shop", List.of("public.product"), new Properties());
    assertThat(
            new CatalogSource.Dialect(noTls)
                .getPooledDataSourceFactory()
                .getJdbcUrl(noTls.create(0)))
        .isEqualTo("jdbc:postgresql://db:5432/shop");
  }
}
