package dev.weir.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The products copy's splits: numeric ranges of product ids, as before ids became strings. */
class ProductsCopyTest {

  @Test
  void aSplitIsTheProductIdsFromItsStartToTheNextSplitsStartLessOne() {
    Split middle = new Split("100", "200");
    assertThat(ProductsCopy.from(middle)).isEqualTo(100);
    assertThat(ProductsCopy.to(middle)).isEqualTo(199);
  }

  @Test
  void theOuterSplitsReachTheEndsOfTheLongs() {
    assertThat(ProductsCopy.from(new Split(null, "5"))).isEqualTo(Long.MIN_VALUE);
    assertThat(ProductsCopy.to(new Split("5", null))).isEqualTo(Long.MAX_VALUE);
    assertThat(ProductsCopy.to(new Split("-9223372036854775807", null))).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void anIdThatIsNotAProductIdIsNone() {
    assertThat(ProductsCopy.productId("42")).isEqualTo(42L);
    assertThat(ProductsCopy.productId("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    assertThat(ProductsCopy.productId("b-1984")).isNull();
    assertThat(ProductsCopy.productId("")).isNull();
  }
}
