package dev.weir.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.documents.index.SearchContract;
import dev.weir.it.engines.EverySearchEngine;
import dev.weir.schema.Json;
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
 * DocumentIndex#document}) in an index with the mapping the job derives from the bundled products
 * definition, through an alias.
 */
@EverySearchEngine
@ExtendWith(LocalStackExtension.class)
class SearchContractITCase {

  private static String alias;
  private static DocumentPlan plan;
  private static SearchCluster es;

  @BeforeAll
  static void indexSomeProducts() throws Exception {
    // Each run its own topics: a JVM may run this class once per search engine.
    String run = UUID.randomUUID().toString().substring(0, 8);
    WeirConfig config =
        TestDatabases.withFreshCatalog(
            TestDatabases.fresh(LocalStackExtension.config(), "it_contract"), "it.contract", run);
    alias = config.get(DocumentOptions.ALIAS);
    plan = Definitions.plans(config).get(0);
    DocumentIndex index = new DocumentIndex(plan);
    es = ElasticsearchConnection.cluster(config);
    index.create(es, alias + "-v1");
    es.updateAliases(
        Json.mapper()
            .createArrayNode()
            .add(SearchCluster.aliasAction("add", alias + "-v1", alias)));
    List<DocumentChange> docs =
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
    for (DocumentChange d : docs) {
      SearchDocuments.index(es, alias, d.id, d.version, index.document(d));
    }
    es.refresh(alias);
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
  void theMappingDerivedFromTheProductsDefinitionIsTheDocumentedOne() throws Exception {
    String documented;
    try (var in =
        getClass()
            .getClassLoader()
            .getResourceAsStream("weir/schemas/elasticsearch/products.mapping.json")) {
      documented = new String(in.readAllBytes(), UTF_8);
    }
    assertThat(Json.mapper().readTree(new DocumentIndex(plan).mapping()))
        .isEqualTo(Json.mapper().readTree(documented));
  }

  @Test
  void theSearchContractPageQuotesEveryExampleQueryAsItIs() throws Exception {
    String readme = squeezed(Files.readString(Path.of("..", "docs", "search-contract.md")));
    for (String name : SearchContract.EXAMPLE_QUERIES) {
      assertThat(readme).as(name).contains(squeezed(SearchContract.exampleQuery(name)));
    }
  }

  private static List<ObjectNode> run(String example) throws Exception {
    return SearchContract.search(es, alias, SearchContract.exampleQuery(example));
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

  /** A product's document as the job makes it: its fields in the plan's order, as JSON. */
  private static DocumentChange doc(
      long id,
      String name,
      String description,
      long brandId,
      String brandName,
      List<String> path,
      String price,
      String currency) {
    ObjectNode fields = Json.mapper().createObjectNode();
    fields.put("product_id", id);
    fields.put("sku", String.format("SKU-%06d", id));
    fields.put("name", name);
    fields.put("description", description);
    fields.putObject("attributes").put("colour", "red");
    fields.put("brand_id", brandId);
    fields.put("category_id", id * 100);
    fields.put("updated_at", "2026-11-21T10:00:00Z");
    fields.put("brand_name", brandName);
    path.forEach(fields.putArray("category_path")::add);
    fields.put("price", new BigDecimal(price));
    fields.put("currency", currency);
    return DocumentChange.whole(plan, Long.toString(id), fields, 1);
  }
}
