package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.search.ProductsIndex;
import dev.weir.search.SearchDocument;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The search contract for API consumers: the example queries of schemas/elasticsearch/examples
 * (quoted in docs/search-contract.md), run against documents as the job writes them ({@link
 * SearchDocument#toJson}), in an index made from the mapping in schemas/, through an alias.
 */
@ExtendWith(LocalStackExtension.class)
class SearchContractITCase {

  private static final String ALIAS = "it-contract-" + UUID.randomUUID().toString().substring(0, 8);
  private static ElasticsearchClient es;

  @BeforeAll
  static void indexSomeProducts() throws Exception {
    es = ElasticsearchClients.blocking(ElasticsearchSettings.from(LocalStackExtension.config()));
    ProductsIndex.create(es, ALIAS + "-v1");
    es.indices()
        .updateAliases(u -> u.actions(a -> a.add(add -> add.index(ALIAS + "-v1").alias(ALIAS))));
    List<SearchDocument> docs =
        List.of(
            doc(
                1,
                "Waterproof Trail Jacket",
                "Taped seams.",
                1,
                "Brand Alpine",
                outdoor(),
                "89.90",
                "EUR"),
            doc(
                2,
                "Insulated Waterproof Jacket",
                "Warm.",
                2,
                "Brand North",
                apparel(),
                "149.00",
                "EUR"),
            doc(3, "Compact Kettle", "Waterproof base.", 1, "Brand Alpine", home(), "35.00", "EUR"),
            doc(
                4,
                "Trail Tent",
                "A waterproof tent; pairs well with a jacket.",
                1,
                "Brand Alpine",
                outdoor(),
                "20.00",
                "EUR"),
            doc(5, "Travel Mug", "Insulated.", 1, "Brand Alpine", outdoor(), "25.00", "USD"),
            doc(
                6,
                "Wireless Lamp",
                "Rechargeable.",
                3,
                "Brand Volt",
                List.of("Electronics"),
                "100.00",
                "EUR"));
    for (SearchDocument d : docs) {
      es.index(
          i ->
              i.index(ALIAS)
                  .id(Long.toString(d.productId))
                  .withJson(new StringReader(new String(d.toJson()))));
    }
    es.indices().refresh(r -> r.index(ALIAS));
  }

  @Test
  void fullTextOverNameAndDescriptionRanksNameMatchesFirst() throws Exception {
    List<Long> ids = ids(run("full-text"));
    // Both words are needed; a name match (boosted) ranks above a description-only match.
    assertThat(ids).hasSize(3);
    assertThat(ids.subList(0, 2)).containsExactlyInAnyOrder(1L, 2L);
    assertThat(ids.get(2)).isEqualTo(4L);
  }

  @Test
  void brandAndCategoryFilterMatchesTheCategoryAndAllBelowIt() throws Exception {
    // Outdoor is the root of 1, 4 and 5's paths; 3 is the brand's but in Home; 2 is another brand.
    assertThat(ids(run("brand-and-category"))).containsExactly(1L, 4L, 5L);
  }

  @Test
  void priceRangeIsInclusiveSortedByPriceAndInOneCurrency() throws Exception {
    List<ObjectNode> hits = run("price-range");
    assertThat(ids(hits)).containsExactly(4L, 3L, 1L, 6L);
    assertThat(hits.get(0).get("price").decimalValue()).isEqualByComparingTo("20.00");
  }

  @Test
  void theSearchContractPageQuotesEveryExampleQueryAsItIs() throws Exception {
    String readme = squeezed(Files.readString(Path.of("..", "docs", "search-contract.md")));
    for (String name : ProductsIndex.EXAMPLE_QUERIES) {
      assertThat(readme).as(name).contains(squeezed(ProductsIndex.exampleQuery(name)));
    }
  }

  private static List<ObjectNode> run(String example) throws Exception {
    return ProductsIndex.search(es, ALIAS, ProductsIndex.exampleQuery(example));
  }

  private static List<Long> ids(List<ObjectNode> hits) {
    return hits.stream().map(h -> h.get("product_id").asLong()).toList();
  }

  private static String squeezed(String text) {
    return text.replaceAll("\\s+", " ").trim();
  }

  private static List<String> outdoor() {
    return List.of("Outdoor", "Outdoor Hiking", "Jackets");
  }

  private static List<String> apparel() {
    return List.of("Apparel", "Apparel Outerwear");
  }

  private static List<String> home() {
    return List.of("Home", "Home Kitchen");
  }

  private static SearchDocument doc(
      long id,
      String name,
      String description,
      long brandId,
      String brandName,
      List<String> path,
      String price,
      String currency) {
    SearchDocument d = new SearchDocument();
    d.productId = id;
    d.sku = String.format("SKU-%06d", id);
    d.name = name;
    d.description = description;
    d.attributes = "{\"colour\":\"red\"}";
    d.brandId = brandId;
    d.brandName = brandName;
    d.categoryId = id * 100;
    d.categoryPath = path;
    d.price = new BigDecimal(price);
    d.currency = currency;
    d.updatedAt = "2026-11-21T10:00:00Z";
    return d;
  }
}
