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
}
