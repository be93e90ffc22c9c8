package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.schema.ChangeEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.InvalidEventException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The envelopes the indexer accepts: weir's cdc-catalog and Debezium Server (bare envelope), Kafka
 * Connect with schemas.enable=true ({schema, payload}), and what converters vary on.
 */
class CatalogChangesTest {

  private final EventCodec<ChangeEvent> codec =
      EventCodec.of(EventSchema.CDC_CATALOG, ChangeEvent.class);

  @Test
  void anIdIsAnIntegerExactlyOrRefused() {
    assertThat(CatalogChanges.id(Map.of("id", 7), "id")).isEqualTo(7);
    assertThat(CatalogChanges.id(Map.of("id", Long.MAX_VALUE), "id")).isEqualTo(Long.MAX_VALUE);
    assertThat(CatalogChanges.id(Map.of("id", "42"), "id")).isEqualTo(42);
    assertThat(CatalogChanges.id(Map.of("id", 7.0), "id")).isEqualTo(7);
    // longValue() made these products 1 and 1.
    for (Object notAnId :
        List.of(new BigInteger("18446744073709551617"), 1.5, new BigDecimal("1.5"), "1e30")) {
      assertThatThrownBy(() -> CatalogChanges.id(Map.of("id", notAnId), "id"))
          .as("%s", notAnId)
          .hasMessageContaining("'id' is not an integer");
    }
  }

  @Test
  void aTimestampOutsideTheYearsPostgresAndElasticsearchTakeIsRefused() {
    assertThat(CatalogChanges.timestamp(Map.of("t", "9999-12-31T23:59:59Z"), "t"))
        .isEqualTo("9999-12-31T23:59:59Z");
    assertThatThrownBy(() -> CatalogChanges.timestamp(Map.of("t", "+10000-01-01T00:00:00Z"), "t"))
        .hasMessageContaining("'t' year 10000 is outside 1..9999");
    assertThatThrownBy(() -> CatalogChanges.timestamp(Map.of("t", -62_200_000_000_000L), "t"))
        .hasMessageContaining("is outside 1..9999");
  }

  @Test
  void aBareEnvelopeWithAnUnavailableDescriptionKeepsItUnchanged() throws Exception {
    ProductRow row = ProductRow.of(sample("product-update-no-schema.json"));
    assertThat(row.id).isEqualTo(1001);
    assertThat(row.stamp).isEqualTo(24023928L);
    assertThat(row.descriptionUnavailable).isTrue();
    assertThat(row.description).isNull(); // never the marker string
    assertThat(row.attributes).isEqualTo("{\"color\":\"red\"}");
    assertThat(row.updatedAt).isEqualTo("2026-11-20T09:18:00Z");
  }

  @Test
  void theSchemaAndPayloadFormOfKafkaConnectReadsTheSame() throws Exception {
    Dimension brand = Dimension.of(Dimension.Kind.BRAND, sample("brand-insert-with-schema.json"));
    assertThat(brand.id).isEqualTo(3);
    assertThat(brand.name).isEqualTo("Northwind");
    assertThat(brand.stamp).isEqualTo(23999000L);
  }

  @Test
  void aDeleteReadsTheKeyFromBeforeAndASnapshotReadIsOlderThanAnyChange() throws Exception {
    ProductRow deleted = ProductRow.of(sample("product-delete.json"));
    assertThat(deleted.deleted).isTrue();
    assertThat(deleted.stamp).isPositive();
    Dimension category = Dimension.of(Dimension.Kind.CATEGORY, sample("category-snapshot.json"));
    assertThat(category.stamp).isZero();
  }

  @Test
  void convertersThatSendIdsAsTextJsonbAsAnObjectAndTimestampsAsEpochAreRead() throws Exception {
    ProductRow row =
        ProductRow.of(
            decode(
                "{\"op\":\"c\",\"after\":{\"id\":\"7\",\"sku\":\"S\",\"name\":\"N\","
                    + "\"attributes\":{\"size\":\"L\"},\"brand_id\":2,\"category_id\":null,"
                    + "\"updated_at\":1763630280123},\"source\":{\"table\":\"product\",\"lsn\":99}}"));
    assertThat(row.id).isEqualTo(7);
    assertThat(row.attributes).isEqualTo("{\"size\":\"L\"}");
    assertThat(row.categoryId).isNull();
    assertThat(row.updatedAt).isEqualTo("2025-11-20T09:18:00.123Z");

    ProductRow micros =
        ProductRow.of(
            decode(
                "{\"op\":\"u\",\"after\":{\"id\":8,\"updated_at\":1763630280123456},"
                    + "\"source\":{\"lsn\":100}}"));
    assertThat(micros.updatedAt).isEqualTo("2025-11-20T09:18:00.123456Z");
  }

  @Test
  void anEventWithoutItsRowOrKeyIsRejectedWithAReadableReason() throws Exception {
    assertThatThrownBy(() -> ProductRow.of(decode("{\"op\":\"u\",\"after\":null}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("op 'u' without 'after'");
    assertThatThrownBy(() -> ProductRow.of(decode("{\"op\":\"c\",\"after\":{\"sku\":\"x\"}}")))
        .hasMessage("no 'id' in the row");
    assertThatThrownBy(() -> ProductRow.of(decode("{\"op\":\"c\",\"after\":{\"id\":\"seven\"}}")))
        .hasMessage("'id' is not an integer: seven");
  }

  @Test
  void readingAsDecodedSkipsMessagesAndRefusesTruncatesAndUnreadableRows() throws Exception {
    var rows = CatalogChanges.rows(ProductRow::of);
    assertThat(rows.convert(decode("{\"op\":\"m\"}"))).isNull();
    assertThatThrownBy(() -> rows.convert(decode("{\"op\":\"t\"}")))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith("TRUNCATE of the catalog table is not applied");
    assertThatThrownBy(
            () ->
                rows.convert(
                    decode(
                        "{\"op\":\"t\",\"before\":null,\"after\":null,"
                            + "\"source\":{\"schema\":\"public\",\"table\":\"product\"}}")))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage(
            "TRUNCATE of public.product is not applied to the documents, which still hold its"
                + " rows: rebuild them from a new snapshot (docs/search-index.md#truncate)");
    assertThatThrownBy(() -> rows.convert(decode("{\"op\":\"d\",\"before\":null}")))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("unreadable change event: op 'd' without 'before'");
    assertThat(rows.convert(decode("{\"op\":\"c\",\"after\":{\"id\":7}}")).id).isEqualTo(7);
  }

  @Test
  void attributesMustBeAnObjectTheIndexTakes() throws Exception {
    String nested = "{\"a\":".repeat(20) + "1" + "}".repeat(20);
    String tooDeep = "{\"a\":".repeat(21) + "1" + "}".repeat(21);
    assertThat(
            ProductRow.of(decode(product("\"" + nested.replace("\"", "\\\"") + "\""))).attributes)
        .isEqualTo(nested);
    assertThatThrownBy(
            () -> ProductRow.of(decode(product("\"" + tooDeep.replace("\"", "\\\"") + "\""))))
        .hasMessage("'attributes' nests objects 21 deep; the products index takes at most 20");
    assertThatThrownBy(() -> ProductRow.of(decode(product("\"[1, 2]\""))))
        .hasMessage("'attributes' is a JSON array, not an object");
  }

  private static String product(String attributes) {
    return "{\"op\":\"c\",\"after\":{\"id\":7,\"attributes\":" + attributes + "}}";
  }

  private ChangeEvent decode(String json) throws Exception {
    return codec.decode(json.getBytes(StandardCharsets.UTF_8));
  }

  /** The project's own samples of cdc.catalog (schemas/samples), as a writer would send them. */
  private ChangeEvent sample(String name) throws Exception {
    return codec.decode(
        Files.readAllBytes(
            Path.of(
                System.getProperty("basedir", "."), "../../schemas/samples/cdc.catalog/v1", name)));
  }
}
