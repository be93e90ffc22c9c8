package dev.weir.it.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.BundledDocuments;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The catalog path: each batch renames one of 20 products in the catalog database (captured by
 * cdc-catalog) and sends it a new price version; every document must end with its product's last
 * name and highest price, in Elasticsearch and in the copy (product_document), at the same version
 * in both.
 */
final class SearchIndexWorkload extends Workload {

  private static final int PRODUCTS = 20;

  /** How long the jobs wait for Elasticsearch's answer: less than a freeze lasts. */
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(15);

  private final String catalogUrl;
  private final SearchCluster es;

  SearchIndexWorkload(String run) throws Exception {
    super(
        List.of(CatalogCaptureJob.NAME, SearchIndexJob.NAME),
        withShallowCategoryPath(
                TestDatabases.withFreshCatalog(
                    TestDatabases.fresh(LocalStackExtension.config(), "it_failover_search"),
                    "it.failover",
                    run),
                run)
            // Shorter than the freeze, which the bulk in flight must outlast and be retried.
            .with(WeirOptions.ELASTICSEARCH_SOCKET_TIMEOUT, SOCKET_TIMEOUT));
    catalogUrl = config.get(DocumentOptions.CATALOG_URL);
    es = ElasticsearchConnection.cluster(config);
    List<String> topics = new ArrayList<>(new CatalogCaptureJob().topics(config));
    topics.addAll(new SearchIndexJob().topics(config));
    KafkaTopics.createTopicsIfMissing(config, topics.stream().distinct().toList(), 2);

    try (Connection c = PostgresConnectionProvider.open(config, catalogUrl)) {
      c.createStatement().execute("INSERT INTO brand VALUES (1, 'Acme')");
      c.createStatement().execute("INSERT INTO category VALUES (1, 'Outdoor', NULL)");
      c.createStatement()
          .execute(
              "INSERT INTO product (id, sku, name, description, brand_id, category_id)"
                  + " SELECT i, 'SKU-' || i, 'Product ' || i, repeat('words ', 400), 1, 1"
                  + " FROM generate_series(1, "
                  + PRODUCTS
                  + ") AS i");
    }
  }

  /**
   * The products definition with a category path of at most 2 levels (the catalog here has one):
   * each level is a stage of the join, and these tests are about the cluster, not the document;
   * fewer tasks deploy, restore and checkpoint faster on 2 cores.
   */
  private static WeirConfig withShallowCategoryPath(WeirConfig config, String run)
      throws IOException {
    Path file =
        BundledDocuments.write(
            Files.createTempDirectory("weir-failover-" + run).resolve("products.json"),
            "products.json",
            DocumentOptions.database(config.get(DocumentOptions.CATALOG_URL)),
            config.get(DocumentOptions.ALIAS),
            config.get(DocumentOptions.PRICING_TOPIC));
    String definition = Files.readString(file);
    Files.writeString(file, definition.replace("\"max_depth\": 8", "\"max_depth\": 2"));
    assertThat(Files.readString(file)).contains("\"max_depth\": 2");
    return config.with(DocumentOptions.DOCUMENTS, file.toString());
  }

  /**
   * Elasticsearch, frozen rather than stopped, for longer than {@link #SOCKET_TIMEOUT}: its bulk
   * requests must time out and be retried, not hang the sink; a refused connection takes the same
   * retry sooner. (A restart of it took a minute of the suite, most of it Elasticsearch starting.)
   */
  @Override
  List<LocalService> frozen(LocalStack stack) {
    return List.of(stack.elasticsearch());
  }

  @Override
  void send(int n) throws Exception {
    long product = product(n);
    try (Connection c = PostgresConnectionProvider.open(config, catalogUrl);
        PreparedStatement rename =
            c.prepareStatement("UPDATE product SET name = ?, updated_at = now() WHERE id = ?")) {
      rename.setString(1, name(product, n));
      rename.setLong(2, product);
      rename.executeUpdate();
    }
    String price =
        String.format(
            "{\"product_id\":%d,\"price\":%d.5,\"currency\":\"EUR\",\"version\":%d}",
            product, n, n);
    Kafka.sendAll(
        producer,
        List.of(
            new ProducerRecord<>(
                config.get(DocumentOptions.PRICING_TOPIC),
                price.getBytes(StandardCharsets.UTF_8))));
  }

  @Override
  void verify(int batches) throws Exception {
    Map<String, String> expected = new TreeMap<>();
    for (long p = 1; p <= PRODUCTS; p++) {
      expected.put(Long.toString(p), name(p, 0) + "|");
    }
    for (int n = 1; n <= batches; n++) {
      expected.put(Long.toString(product(n)), name(product(n), n) + "|" + n + ".5");
    }
    assertThat(Await.until(Duration.ofSeconds(120), this::indexed, expected::equals))
        .as("Elasticsearch: name|price of each product")
        .isEqualTo(expected);
    assertThat(Await.until(Duration.ofSeconds(60), this::copied, expected::equals))
        .as("product_document: name|price of each product")
        .isEqualTo(expected);
    // The index and the copy agree on each document's version: no write regressed either.
    assertThat(Await.until(Duration.ofSeconds(30), this::indexedVersions, copiedVersions()::equals))
        .isEqualTo(copiedVersions());
  }

  @Override
  String describe(int batches) {
    return String.format(
        "%,d catalog renames + %,d prices over %d products", batches, batches, PRODUCTS);
  }

  private static long product(int n) {
    return (n - 1) % PRODUCTS + 1;
  }

  private static String name(long product, int n) {
    return n == 0 ? "Product " + product : "Product " + product + " rev " + n;
  }

  private Map<String, String> indexed() throws Exception {
    Map<String, String> docs = new TreeMap<>();
    for (JsonNode hit : search()) {
      JsonNode price = hit.path("_source").get("price");
      docs.put(
          hit.path("_id").asText(),
          hit.path("_source").path("name").asText()
              + "|"
              + (price == null || price.isNull() ? "" : Double.toString(price.doubleValue())));
    }
    return docs;
  }

  private Map<String, String> indexedVersions() throws Exception {
    Map<String, String> versions = new TreeMap<>();
    for (JsonNode hit : search()) {
      versions.put(hit.path("_id").asText(), Long.toString(hit.path("_version").asLong()));
    }
    return versions;
  }

  private List<JsonNode> search() throws Exception {
    return SearchDocuments.hits(es, config.get(DocumentOptions.ALIAS));
  }

  private Map<String, String> copied() throws Exception {
    // The price is a jsonb label there.
    return rows(
        "name || '|' || coalesce(rtrim(rtrim(((price #>> '{}')::numeric)::text, '0'), '.'), '')");
  }

  private Map<String, String> copiedVersions() throws Exception {
    return rows("doc_version::text");
  }

  private Map<String, String> rows(String value) throws Exception {
    Map<String, String> rows = new TreeMap<>();
    for (String row :
        TestDatabases.strings(
            config,
            config.get(WeirOptions.POSTGRES_URL),
            "SELECT product_id || '=' || " + value + " FROM product_document")) {
      rows.put(row.substring(0, row.indexOf('=')), row.substring(row.indexOf('=') + 1));
    }
    return rows;
  }

  @Override
  public void close() throws Exception {
    super.close();
    CatalogCaptureJob.dropSlot(config);
  }
}
