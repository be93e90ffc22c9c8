package dev.weir.documents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DocumentOptionsTest {

  @Test
  void theCatalogUrlFallsBackToTheStacksEnvironmentAsPostgresUrlDoes() {
    // A stack on another port (WEIR_POSTGRES_PORT) writes both URLs to stack.env.
    Map<String, String> env =
        Map.of(
            "POSTGRES_JDBC_URL", "jdbc:postgresql://127.0.0.1:25432/weir",
            "CATALOG_JDBC_URL", "jdbc:postgresql://127.0.0.1:25432/catalog");
    assertThat(WeirConfig.from(Map.of(), env).get(DocumentOptions.CATALOG_URL))
        .isEqualTo("jdbc:postgresql://127.0.0.1:25432/catalog");
    assertThat(
            WeirConfig.from(Map.of("catalog.postgres.url", "jdbc:postgresql://db/shop"), env)
                .get(DocumentOptions.CATALOG_URL))
        .isEqualTo("jdbc:postgresql://db/shop");
    assertThat(WeirConfig.from(Map.of(), Map.of()).get(DocumentOptions.CATALOG_URL))
        .isEqualTo("jdbc:postgresql://127.0.0.1:15432/catalog");
  }

  @Test
  void aDefinitionsDatabaseIsReadOnTheServerOfTheCatalogUrl() {
    String url = "jdbc:postgresql://db.internal:6543/catalog?sslmode=verify-full";
    assertThat(DocumentOptions.database(url)).isEqualTo("catalog");
    assertThat(DocumentOptions.withDatabase(url, "library"))
        .isEqualTo("jdbc:postgresql://db.internal:6543/library?sslmode=verify-full");
    assertThat(DocumentOptions.withDatabase("jdbc:postgresql://h1,h2/shop", "library"))
        .isEqualTo("jdbc:postgresql://h1,h2/library");
    assertThatThrownBy(() -> DocumentOptions.database("jdbc:postgresql:shop"))
        .hasMessageContaining("is not jdbc:postgresql://host[:port]/database");
  }
}
