package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import dev.weir.search.CatalogCaptureJob;
import dev.weir.search.DeclaredDocuments;
import dev.weir.search.SearchIndexJob;
import dev.weir.search.SearchIndexOptions;
import dev.weir.search.definition.DocumentPlan;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Today's catalog as one declared document (schemas/documents/products.json: the brand's name, the
 * category path root → leaf through weir.path, price and currency from the pricing topic), on the
 * real stack: what SearchIndexITCase asserts of the built-in products document holds for it.
 */
@ExtendWith(LocalStackExtension.class)
class ProductsDefinitionITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(8).build());

  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private WeirConfig config;
  private String catalogUrl;
  private String pricing;
  private DocumentPlan plan;
  private ElasticsearchClient es;
  private JobClient capture;
  private JobClient indexer;

  @AfterEach
  void stop() throws Exception {
    for (JobClient job : new JobClient[] {capture, indexer}) {
      if (job != null) {
        job.cancel().get();
      }
    }
    if (config != null) {
      CatalogCaptureJob.dropSlot(config);
    }
  }

  @Test
  void theCatalogDeclaredInAFileGivesTheProductsDocument() throws Exception {
    start();
    catalog(
        "INSERT INTO brand VALUES (1, 'Acme'), (2, 'Globex')",
        "INSERT INTO category VALUES (1, 'Outdoor', NULL), (11, 'Hiking', 1),"
            + " (111, 'Backpacks', 11), (2, 'Travel', NULL), (21, 'Luggage', 2)",
        product(1, "Trail Backpack 30L", 1, 111),
        product(2, "Summit Tent", 2, 11),
        product(3, "Day Pack 20L", 1, 111));
    Kafka.produce(pricing, List.of(price(1, "89.90", 1)));
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);

    // 1. The snapshot, joined with the brand, the category path and the price.
    JsonNode doc1 =
        awaitDocument(
            1,
            d ->
                d.path("price").isNumber()
                    && d.path("brand_name").isTextual()
                    && d.path("category_path").size() == 3);
    assertThat(doc1.get("name").asText()).isEqualTo("Trail Backpack 30L");
    assertThat(doc1.get("brand_name").asText()).isEqualTo("Acme");
    assertThat(doc1.get("category_path").toString())
        .isEqualTo("[\"Outdoor\",\"Hiking\",\"Backpacks\"]");
    assertThat(doc1.get("currency").asText()).isEqualTo("EUR");
    assertThat(doc1.get("price").decimalValue()).isEqualByComparingTo("89.9");
    assertThat(doc1.get("description").asText()).isEqualTo(description(1));
    awaitDocument(2, d -> "Globex".equals(d.path("brand_name").asText()));

    // 2. A rename that leaves the description alone, 3. a price-only change: no TOAST tuple.
    long toast = copyToastTuples();
    catalog("UPDATE product SET name = 'Trail Backpack 32L', updated_at = now() WHERE id = 1");
    awaitDocument(1, d -> "Trail Backpack 32L".equals(d.path("name").asText()));
    Kafka.produce(pricing, List.of(price(1, "79.90", 2)));
    awaitDocument(
        1, d -> d.path("price").decimalValue().compareTo(new java.math.BigDecimal("79.9")) == 0);
    assertThat(copyToastTuples()).as("TOAST tuples written to the copy").isEqualTo(toast);

    // 4. A brand rename reaches every product of the brand.
    catalog("UPDATE brand SET name = 'Acme Outdoor' WHERE id = 1");
    awaitDocument(1, d -> "Acme Outdoor".equals(d.path("brand_name").asText()));
    awaitDocument(3, d -> "Acme Outdoor".equals(d.path("brand_name").asText()));

    // 5. A category move changes the path of every product below it.
    catalog("UPDATE category SET parent_id = 21 WHERE id = 111");
    awaitDocument(
        1,
        d -> d.path("category_path").toString().equals("[\"Travel\",\"Luggage\",\"Backpacks\"]"));
    awaitDocument(
        3,
        d -> d.path("category_path").toString().equals("[\"Travel\",\"Luggage\",\"Backpacks\"]"));
    assertThat(document(2).get("category_path").toString()).isEqualTo("[\"Outdoor\",\"Hiking\"]");

    // 6. A delete removes the document.
    catalog("DELETE FROM product WHERE id = 2");
    assertThat(Await.until(WAIT, () -> document(2), d -> d == null)).isNull();

    // 7. Prices out of order: the highest version wins.
    Kafka.produce(pricing, List.of(price(3, "49.00", 5), price(3, "59.00", 3)));
    awaitDocument(
        3, d -> d.path("price").decimalValue().compareTo(new java.math.BigDecimal("49")) == 0);
    Thread.sleep(3_000); // the stale version, if it were applied, would have been by now
    assertThat(document(3).get("price").decimalValue()).isEqualByComparingTo("49");
  }

  private void start() throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_products");
    String catalogDb = "it_products_catalog_" + run;
    LocalStackExtension.stack().ensurePostgresDatabase(catalogDb);
    catalogUrl = LocalStackExtension.connections().postgresJdbcUrl(catalogDb);
    pricing = "it.products." + run + ".pricing.events";
    Path definition = dir.resolve("products.json");
    Files.writeString(
        definition,
        resource("weir/schemas/documents/products.json")
            .replace("\"index\": \"products\"", "\"index\": \"it-products-" + run + "\"")
            .replace("\"topic\": \"pricing.events\"", "\"topic\": \"" + pricing + "\""));
    config =
        SearchIndexOptions.ownCatalog(
                base, catalogUrl, "it_products_" + run, "it.products." + run, "it-unused-" + run)
            .with(SearchIndexOptions.DOCUMENTS, definition.toString())
            .with(WeirOptions.DLQ_TOPIC, "it.products.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    CatalogLoader.createTables(config, catalogUrl);
    plan = DeclaredDocuments.plans(config).get(0);
    es = ElasticsearchClients.blocking(ElasticsearchSettings.from(config));
  }

  private void catalog(String... statements) throws Exception {
    TestDatabases.execute(config, catalogUrl, statements);
  }

  private static String product(long id, String name, long brand, long category) {
    return String.format(
        "INSERT INTO product (id, sku, name, description, attributes, brand_id, category_id)"
            + " VALUES (%d, 'SKU-%d', '%s', '%s', '{\"colour\": \"green\"}', %d, %d)",
        id, id, name, description(id), brand, category);
  }

  private static String description(long id) {
    Random random = new Random(id);
    StringBuilder text = new StringBuilder();
    while (text.length() < 8_000) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  private static String price(long productId, String price, long version) {
    return String.format(
        "{\"product_id\":%d,\"price\":%s,\"currency\":\"EUR\",\"version\":%d}",
        productId, price, version);
  }

  private JsonNode document(long id) throws Exception {
    var got = es.get(g -> g.index(plan.index()).id(Long.toString(id)), ObjectNode.class);
    return got.found() ? got.source() : null;
  }

  private JsonNode awaitDocument(long id, Predicate<JsonNode> done) throws Exception {
    JsonNode doc = Await.until(WAIT, () -> document(id), d -> d != null && done.test(d));
    assertThat(doc).as("document %d", id).isNotNull();
    assertThat(done.test(doc)).as("document %d: %s", id, doc).isTrue();
    return doc;
  }

  private long copyToastTuples() throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return TableStats.read(c, plan.copyTable()).toastInserted();
    }
  }

  private static String resource(String name) throws Exception {
    try (InputStream in =
        ProductsDefinitionITCase.class.getClassLoader().getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
