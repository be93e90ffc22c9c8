package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SearchIndexOptionsTest {

  @Test
  void namesWeirPutsInSqlArePlainPostgresNamesOrAClearError() {
    WeirConfig config = WeirConfig.from(Map.of("catalog.slot", "weir_catalog_2"), Map.of());
    assertThat(SearchIndexOptions.identifier(config, SearchIndexOptions.CATALOG_SLOT))
        .isEqualTo("weir_catalog_2");
    for (String hostile : new String[] {"x\"; DROP TABLE product; --", "Upper", "a-b", "", "9x"}) {
      WeirConfig bad = WeirConfig.from(Map.of("catalog.publication", hostile), Map.of());
      assertThatThrownBy(
              () -> SearchIndexOptions.identifier(bad, SearchIndexOptions.CATALOG_PUBLICATION))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "catalog.publication '" + hostile + "' is not a plain PostgreSQL name");
    }
  }

  @Test
  void theCatalogUrlFallsBackToTheStacksEnvironmentAsPostgresUrlDoes() {
    // A stack on another port (WEIR_POSTGRES_PORT) writes both URLs to stack.env.
    Map<String, String> env =
        Map.of(
            "POSTGRES_JDBC_URL", "jdbc:postgresql://127.0.0.1:25432/weir",
            "CATALOG_JDBC_URL", "jdbc:postgresql://127.0.0.1:25432/catalog");
    assertThat(WeirConfig.from(Map.of(), env).get(SearchIndexOptions.CATALOG_URL))
        .isEqualTo("jdbc:postgresql://127.0.0.1:25432/catalog");
    assertThat(
            WeirConfig.from(Map.of("catalog.postgres.url", "jdbc:postgresql://db/shop"), env)
                .get(SearchIndexOptions.CATALOG_URL))
        .isEqualTo("jdbc:postgresql://db/shop");
    assertThat(WeirConfig.from(Map.of(), Map.of()).get(SearchIndexOptions.CATALOG_URL))
        .isEqualTo("jdbc:postgresql://127.0.0.1:15432/catalog");
  }
}
