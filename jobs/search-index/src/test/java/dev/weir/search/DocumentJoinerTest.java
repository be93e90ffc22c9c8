package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.PricingEvent;
import dev.weir.search.SearchDocument.Column;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The join in a harness: what is emitted, which columns it names, and its version. */
class DocumentJoinerTest {

  private KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> harness;

  @BeforeEach
  void open() throws Exception {
    harness =
        ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
            new DocumentJoiner(
                () -> {
                  throw new AssertionError("the copy is read only when the state lacks a value");
                },
                Duration.ofDays(7)),
            ProductInput::productId,
            Types.LONG,
            DocumentJoiner.BRANDS,
            DocumentJoiner.CATEGORIES);
    harness.processBroadcastElement(brand(1, "Acme", 100), 0);
    harness.processBroadcastElement(category(1, "Outdoor", null, 100), 0);
    harness.processBroadcastElement(category(11, "Hiking", 1L, 100), 0);
    harness.processElement(ProductInput.of(product(7, "Tent", "long text", 200)), 0);
  }

  @Test
  void aNewProductIsEmittedWholeWithItsJoinedFields() {
    SearchDocument doc = last();
    assertThat(doc.isNew).isTrue();
    assertThat(doc.brandName).isEqualTo("Acme");
    assertThat(doc.categoryPath).containsExactly("Outdoor", "Hiking");
    // (1 + max LSN 200 + no price) * 64 + 3 rows known (brand, two categories).
    assertThat(doc.docVersion).isEqualTo(201 * 64 + 3);
  }

  @Test
  void aPriceOnlyChangeNamesOnlyThePriceColumnsAndALowerVersionIsIgnored() throws Exception {
    harness.processElement(ProductInput.of(price(7, "10.00", 5)), 0);
    SearchDocument doc = last();
    assertThat(doc.isNew).isFalse();
    assertThat(doc.changedColumns())
        .containsExactlyInAnyOrder(Column.PRICE, Column.CURRENCY, Column.PRICE_VERSION);
    assertThat(doc.docVersion).isEqualTo((1 + 200 + 5) * 64 + 3);

    int emitted = harness.extractOutputValues().size();
    harness.processElement(ProductInput.of(price(7, "12.00", 4)), 0);
    // The same price again under a newer version: nothing a search sees changed, nothing is sent.
    harness.processElement(ProductInput.of(price(7, "10.00", 6)), 0);
    assertThat(harness.extractOutputValues()).hasSize(emitted);
  }

  @Test
  void anUnavailableDescriptionKeepsTheOneHeldAndIsNotNamed() throws Exception {
    ProductRow rename = product(7, "Tent XL", null, 300);
    rename.descriptionUnavailable = true;
    harness.processElement(ProductInput.of(rename), 0);
    SearchDocument doc = last();
    assertThat(doc.description).isEqualTo("long text");
    assertThat(doc.changedColumns()).containsExactly(Column.NAME);
  }

  @Test
  void aBrandRenameOrACategoryMoveReachesTheProductsItAffects() throws Exception {
    harness.processElement(ProductInput.of(product(8, "Lamp", "x", 210)), 0);
    ProductRow other = product(9, "Chair", "y", 220);
    other.brandId = 2L;
    other.categoryId = null;
    harness.processElement(ProductInput.of(other), 0);
    int before = harness.extractOutputValues().size();

    harness.processBroadcastElement(brand(1, "Acme Outdoor", 400), 0);
    List<SearchDocument> renamed = harness.extractOutputValues().subList(before, before + 2);
    assertThat(renamed).extracting(d -> d.productId).containsExactlyInAnyOrder(7L, 8L);
    assertThat(renamed)
        .allSatisfy(d -> assertThat(d.changedColumns()).containsExactly(Column.BRAND_NAME));
    assertThat(harness.extractOutputValues()).hasSize(before + 2);

    harness.processBroadcastElement(category(2, "Travel", null, 500), 0);
    harness.processBroadcastElement(category(11, "Hiking", 2L, 510), 0);
    assertThat(last().categoryPath).containsExactly("Travel", "Hiking");
    assertThat(last().docVersion).isEqualTo((1 + 510) * 64 + 3);
  }

  @Test
  void aDeleteIsEmittedWithAHigherVersionAndALatePriceDoesNotResurrectIt() throws Exception {
    ProductRow delete = product(7, null, null, 600);
    delete.deleted = true;
    harness.processElement(ProductInput.of(delete), 0);
    assertThat(last().deleted).isTrue();
    assertThat(last().docVersion).isEqualTo((1 + 600) * 64);
    int emitted = harness.extractOutputValues().size();
    harness.processElement(ProductInput.of(price(7, "9.00", 9)), 0);
    assertThat(harness.extractOutputValues()).hasSize(emitted);
  }

  @Test
  void aDeletedProductAndAPriceWithoutProductLeaveTheStateAfterTheTombstoneTtl() throws Exception {
    harness.setProcessingTime(0);
    harness.processElement(ProductInput.of(price(99, "5.00", 1)), 0); // its product never comes
    ProductRow delete = product(7, null, null, 600);
    delete.deleted = true;
    harness.processElement(ProductInput.of(delete), 0);
    harness.setProcessingTime(Duration.ofDays(6).toMillis());
    harness.processElement(ProductInput.of(price(99, "6.00", 2)), 0); // a price moves it on
    assertThat(productsHeld()).containsExactly(7L, 99L);

    harness.setProcessingTime(Duration.ofDays(7).toMillis());
    assertThat(productsHeld()).containsExactly(99L);
    harness.setProcessingTime(Duration.ofDays(13).toMillis());
    assertThat(productsHeld()).isEmpty();
    assertThat(keysOf(DocumentJoiner.LARGE_VALUES.getName())).isEmpty();
    assertThat(keysOf(DocumentJoiner.DROP_AT.getName())).isEmpty();
    assertThat(harness.numProcessingTimeTimers()).isZero();
  }

  @Test
  void aProductThatComesBackIsNotDropped() throws Exception {
    harness.setProcessingTime(0);
    ProductRow delete = product(7, null, null, 600);
    delete.deleted = true;
    harness.processElement(ProductInput.of(delete), 0);
    harness.processElement(ProductInput.of(product(7, "Tent", "long text", 700)), 0);
    harness.setProcessingTime(Duration.ofDays(30).toMillis());
    assertThat(productsHeld()).containsExactly(7L);
  }

  /** The products whose state the join holds. */
  private List<Long> productsHeld() throws Exception {
    return keysOf(DocumentJoiner.PRODUCT.getName());
  }

  private List<Long> keysOf(String state) throws Exception {
    return harness
        .getOperator()
        .getKeyedStateBackend()
        .getKeys(state, VoidNamespace.INSTANCE)
        .map(k -> (Long) k)
        .sorted()
        .toList();
  }

  // --- helpers

  private SearchDocument last() {
    List<SearchDocument> out = harness.extractOutputValues();
    return out.get(out.size() - 1);
  }

  static ProductRow product(long id, String name, String description, long lsn) {
    ProductRow p = new ProductRow();
    p.id = id;
    p.sku = "SKU-" + id;
    p.name = name;
    p.description = description;
    p.brandId = 1L;
    p.categoryId = 11L;
    p.updatedAt = "2026-11-21T10:00:00Z";
    p.stamp = lsn;
    return p;
  }

  static PricingEvent price(long id, String price, long version) {
    return new PricingEvent(id, new BigDecimal(price), "EUR", version);
  }

  static Dimension brand(long id, String name, long lsn) {
    Dimension d = new Dimension();
    d.kind = Dimension.Kind.BRAND;
    d.id = id;
    d.name = name;
    d.stamp = lsn;
    return d;
  }

  static Dimension category(long id, String name, Long parent, long lsn) {
    Dimension d = brand(id, name, lsn);
    d.kind = Dimension.Kind.CATEGORY;
    d.parentId = parent;
    return d;
  }
}
