package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import dev.weir.documents.DocumentOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CaptureOptionsTest {

  @Test
  void namesWeirPutsInSqlArePlainPostgresNamesOrAClearError() {
    WeirConfig config = WeirConfig.from(Map.of("catalog.slot", "weir_catalog_2"), Map.of());
    assertThat(DocumentOptions.identifier(config, CaptureOptions.CATALOG_SLOT))
        .isEqualTo("weir_catalog_2");
    for (String hostile : new String[] {"x\"; DROP TABLE product; --", "Upper", "a-b", "", "9x"}) {
      WeirConfig bad = WeirConfig.from(Map.of("catalog.publication", hostile), Map.of());
      assertThatThrownBy(() -> DocumentOptions.identifier(bad, CaptureOptions.CATALOG_PUBLICATION))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "catalog.publication '" + hostile + "' is not a plain PostgreSQL name");
    }
  }

  /**
   * Unset, the slot and the publication are the database's (and the deployment's): two captures on
   * one server, of two databases or by two deployments, do not collide; the bundled definition's
   * database (catalog) keeps the name it always had.
   */
  @Test
  void slotsAndPublicationsAreNamedAfterTheDatabaseUnlessGiven() {
    WeirConfig unset = WeirConfig.from(Map.of(), Map.of());
    assertThat(CaptureOptions.slot(unset, "catalog", false)).isEqualTo("weir_catalog");
    assertThat(CaptureOptions.publication(unset, "Library-2", true)).isEqualTo("weir_library_2");
    WeirConfig deployed = WeirConfig.from(Map.of("deployment.id", "eu-1"), Map.of());
    assertThat(CaptureOptions.slot(deployed, "shop", false)).isEqualTo("weir_shop_eu_1");

    WeirConfig given = WeirConfig.from(Map.of("catalog.slot", "mine"), Map.of());
    assertThat(CaptureOptions.slot(given, "shop", false)).isEqualTo("mine");
    assertThat(CaptureOptions.slot(given, "shop", true)).isEqualTo("mine_shop");
    assertThat(CaptureOptions.publication(given, "shop", false)).isEqualTo("weir_shop");
  }
}
