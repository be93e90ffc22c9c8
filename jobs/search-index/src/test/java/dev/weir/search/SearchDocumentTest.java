package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.schema.Json;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Elasticsearch document: every field the products mapping has, with JSON's own types. */
class SearchDocumentTest {

  @Test
  void theDocumentCarriesEveryFieldOfTheMapping() throws Exception {
    SearchDocument d = new SearchDocument();
    d.productId = 7;
    d.sku = "TENT-2";
    d.name = "Tent \"Zwei\"";
    d.description = "Zelt für zwei ⛺\n" + "x".repeat(5000);
    d.attributes = "{\"colour\":\"green\",\"size\":{\"people\":2}}";
    d.brandId = 1L;
    d.brandName = "Acme";
    d.categoryId = 11L;
    d.categoryPath = List.of("Outdoor", "Hiking");
    d.price = new BigDecimal("199.90");
    d.currency = "EUR";
    d.updatedAt = "2026-11-23T05:00:00Z";
    d.contentHash = new byte[] {0x0a, (byte) 0xff};

    JsonNode json = Json.mapper().readTree(d.toJson());

    assertThat(json.get("product_id").asLong()).isEqualTo(7);
    assertThat(json.get("sku").asText()).isEqualTo("TENT-2");
    assertThat(json.get("name").asText()).isEqualTo("Tent \"Zwei\"");
    assertThat(json.get("description").asText()).isEqualTo(d.description);
    assertThat(json.get("attributes").get("size").get("people").asInt()).isEqualTo(2);
    assertThat(json.get("brand_id").asLong()).isEqualTo(1);
    assertThat(json.get("brand_name").asText()).isEqualTo("Acme");
    assertThat(json.get("category_id").asLong()).isEqualTo(11);
    assertThat(json.get("category_path"))
        .extracting(JsonNode::asText)
        .containsExactly("Outdoor", "Hiking");
    assertThat(json.get("price").isNumber()).isTrue();
    assertThat(json.get("price").decimalValue()).isEqualByComparingTo("199.90");
    assertThat(json.get("currency").asText()).isEqualTo("EUR");
    assertThat(json.get("updated_at").asText()).isEqualTo("2026-11-23T05:00:00Z");
    assertThat(json.get("content_hash").asText()).isEqualTo("0aff");
  }

  @Test
  void missingValuesAreNullsAndAnEmptyPath() throws Exception {
    SearchDocument d = new SearchDocument();
    d.productId = 8;

    JsonNode json = Json.mapper().readTree(d.toJson());

    assertThat(json.has("attributes")).isFalse();
    for (String field :
        List.of(
            "sku",
            "name",
            "description",
            "brand_id",
            "brand_name",
            "category_id",
            "price",
            "currency",
            "updated_at",
            "content_hash")) {
      assertThat(json.get(field).isNull()).as(field).isTrue();
    }
    assertThat(json.get("category_path").isArray()).isTrue();
    assertThat(json.get("category_path")).isEmpty();
  }
}
