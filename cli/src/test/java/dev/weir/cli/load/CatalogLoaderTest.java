package dev.weir.cli.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class CatalogLoaderTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aProductsNextPriceNeverRepeatsItsLast() throws Exception {
    CatalogLoader loader = new CatalogLoader(1);
    // 50,000 versions apart the formula alone gives the same price (the benchmark once waited
    // forever on such a product: its price change changed nothing, so nothing was written).
    BigDecimal first = price(loader.price(2153, 1_000));
    BigDecimal second = price(loader.price(2153, 51_000));
    BigDecimal third = price(loader.price(2153, 101_000));

    assertThat(second).isNotEqualByComparingTo(first);
    assertThat(third).isNotEqualByComparingTo(second);
  }

  @Test
  void pricesAreDeterministicAndInRange() throws Exception {
    BigDecimal a = price(new CatalogLoader(1).price(7, 42));
    BigDecimal b = price(new CatalogLoader(2).price(7, 42));

    assertThat(a)
        .isEqualByComparingTo(b)
        .isBetween(new BigDecimal("5.00"), new BigDecimal("504.99"));
  }

  @Test
  void descriptionsHaveAboutTheAskedSize() {
    assertThat(new CatalogLoader(1).description(6_000)).hasSizeBetween(6_000, 6_200);
    assertThat(new CatalogLoader(1).description(24_000)).hasSizeBetween(24_000, 24_200);
  }

  private static BigDecimal price(byte[] event) throws Exception {
    return JSON.readTree(event).get("price").decimalValue();
  }
}
