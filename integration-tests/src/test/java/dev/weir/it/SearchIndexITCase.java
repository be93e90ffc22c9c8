package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
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

/**
 * The whole path on the real stack: the catalog database → Debezium (cdc-catalog) → Kafka →
 * search-index → the copy in PostgreSQL and the products alias in Elasticsearch, on the default
 * document: the bundled schemas/documents/products.json (its copy {@code product_document}).
 */
@ExtendWith(LocalStackExtension.class)
class SearchIndexITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(4).build());

  private static final Duration WAIT = Duration.ofSeconds(90);

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private WeirConfig config;
  private String catalogUrl;
  private String copyUrl;
  private SearchCluster es;
  private JobClient capture;
  private JobClient indexer;

  /** The copy table, and the SQL of the columns {@link #copyRow} shows, in one text form. */
  private String copyTable;

  // Labels are jsonb in the copy: shown as text, the path as a SQL array, the price at its scale.
  private static final String COPY_COLUMNS =
      "(brand_name #>> '{}') || '|'"
          + " || ARRAY(SELECT jsonb_array_elements_text(category_path))::text || '|'"
          + " || (price #>> '{}')::numeric(14,4)";

  private void start() throws Exception {
    config =
        TestDatabases.withFreshCatalog(
            TestDatabases.fresh(LocalStackExtension.config(), "it_search"), "it", run);
    catalogUrl = config.get(DocumentOptions.CATALOG_URL);
    copyTable = Definitions.plans(config).get(0).copyTable();
    copyUrl = config.get(WeirOptions.POSTGRES_URL);
    es = ElasticsearchConnection.cluster(config);

    catalog(
        "INSERT INTO brand VALUES (1, 'Acme'), (2, 'Globex')",
        "INSERT INTO category VALUES (1, 'Outdoor', NULL), (11, 'Hiking', 1),"
            + " (111, 'Backpacks', 11), (2, 'Travel', NULL), (21, 'Luggage', 2)",
        product(1, "Trail Backpack 30L", 1, 111),
        product(2, "Summit Tent", 2, 11),
        product(3, "Day Pack 20L", 1, 111));
    Kafka.produce(config.get(DocumentOptions.PRICING_TOPIC), List.of(price(1, "89.90", 1)));

    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
  }

  @AfterEach
  void stop() throws Exception {
    for (JobClient job : new JobClient[] {capture, indexer}) {
      if (job != null) {
        job.cancel().get();
      }
    }
    CatalogCaptureJob.dropSlot(config);
  }

  @Test
  void catalogChangesPricesAndAReplayEndInTheRightDocumentsWithoutRewritingLargeValues()
      throws Exception {
    start();
    // 1. The snapshot: three documents, joined with brand, category path and price.
    // Products, brands, categories and prices arrive on four topics in any order: the document
    // fills in as they do.
    Map<String, Object> doc1 =
        awaitDocument(
            1,
            d ->
                d.get("price") != null
                    && d.get("brand_name") != null
                    && d.get("category_path") instanceof List<?> path
                    && path.size() == 3);
    assertThat(doc1)
        .containsEntry("name", "Trail Backpack 30L")
        .containsEntry("brand_name", "Acme")
        .containsEntry("category_path", List.of("Outdoor", "Hiking", "Backpacks"))
        .containsEntry("currency", "EUR");
    assertThat(price(doc1)).isEqualTo(89.9);
    assertThat((String) doc1.get("description")).hasSize(8_000).isEqualTo(description(1));
    awaitDocument(2, d -> "Globex".equals(d.get("brand_name")));
    awaitDocument(3, d -> List.of("Outdoor", "Hiking", "Backpacks").equals(d.get("category_path")));
    assertThat(copyRow(1)).contains("Trail Backpack 30L|Acme|{Outdoor,Hiking,Backpacks}|89.9000");

    // 2. A rename that leaves the (TOASTed) description alone: Debezium sends it as unavailable;
    //    the copy gets the new name only, and not one TOAST tuple.
    long toastBefore = copyToastTuplesWritten();
    catalog("UPDATE product SET name = 'Trail Backpack 32L', updated_at = now() WHERE id = 1");
    doc1 = awaitDocument(1, d -> "Trail Backpack 32L".equals(d.get("name")));
    assertThat(doc1.get("description")).isEqualTo(description(1));
    assertThat(copyDescription(1)).isEqualTo(description(1));

    // 3. A price-only change: a new price, the description not re-sent.
    Kafka.produce(config.get(DocumentOptions.PRICING_TOPIC), List.of(price(1, "79.90", 2)));
    awaitDocument(1, d -> price(d) == 79.9);
    assertThat(
            Await.until(
                WAIT,
                () -> copyRow(1),
                r -> r.contains("Trail Backpack 32L|Acme|{Outdoor,Hiking,Backpacks}|79.9000")))
        .contains("|79.9000");
    assertThat(copyToastTuplesWritten())
        .as("TOAST tuples written to the copy")
        .isEqualTo(toastBefore);

    // 4. A brand rename reaches every product of the brand.
    catalog("UPDATE brand SET name = 'Acme Outdoor' WHERE id = 1");
    awaitDocument(1, d -> "Acme Outdoor".equals(d.get("brand_name")));
    awaitDocument(3, d -> "Acme Outdoor".equals(d.get("brand_name")));
    assertThat(document(2)).containsEntry("brand_name", "Globex");

    // 5. A category move changes the path of every product below it.
    catalog("UPDATE category SET parent_id = 21 WHERE id = 111");
    awaitDocument(1, d -> List.of("Travel", "Luggage", "Backpacks").equals(d.get("category_path")));
    awaitDocument(3, d -> List.of("Travel", "Luggage", "Backpacks").equals(d.get("category_path")));
    assertThat(document(2)).containsEntry("category_path", List.of("Outdoor", "Hiking"));

    // 6. A delete removes the document and the row.
    catalog("DELETE FROM product WHERE id = 2");
    assertThat(Await.until(WAIT, () -> document(2), d -> d == null)).isNull();
    assertThat(Await.until(WAIT, () -> copyRow(2), r -> r.isEmpty())).isEmpty();

    // 7. Prices out of order: the highest version wins.
    Kafka.produce(
        config.get(DocumentOptions.PRICING_TOPIC),
        List.of(price(3, "49.00", 5), price(3, "59.00", 3)));
    awaitDocument(3, d -> price(d) == 49.0);
    Thread.sleep(3_000); // the stale version, if it were applied, would have been by now
    assertThat(price(document(3))).isEqualTo(49.0);
    assertThat(Await.until(WAIT, () -> copyRow(3), r -> r.contains("|49.0000")))
        .contains("|49.0000");
    assertThat(copyToastTuplesWritten())
        .as("TOAST tuples written to the copy")
        .isEqualTo(toastBefore);

    // 8. Replay every topic from the beginning with a fresh job: every document and its version
    //    stay as they were.
    Map<String, String> indexed = indexedVersions();
    Map<String, String> copied = copiedVersions();
    assertThat(indexed).hasSize(2).isEqualTo(copied); // same versions and hashes in both
    indexer.cancel().get();
    Kafka.deleteGroup(DeploymentNames.groupId(SearchIndexJob.NAME), WAIT);
    long replayStart = copyStatementsApplied();
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
    assertThat(Await.until(WAIT, this::replayedToTheEnd, done -> done))
        .as("the new job has read every topic to its end")
        .isTrue();
    assertThat(indexedVersions()).isEqualTo(indexed);
    assertThat(copiedVersions()).isEqualTo(copied);
    assertThat(copyStatementsApplied() - replayStart).as("rows the replay changed").isZero();
  }

  // --- the catalog

  private static String description(long id) {
    // Random letters: PostgreSQL cannot compress it below its TOAST threshold.
    Random random = new Random(id);
    StringBuilder text = new StringBuilder();
    while (text.length() < 8_000) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  private static String product(long id, String name, long brand, long category) {
    return String.format(
        "INSERT INTO product (id, sku, name, description, attributes, brand_id, category_id)"
            + " VALUES (%d, 'SKU-%d', '%s', '%s', '{\"colour\": \"green\"}', %d, %d)",
        id, id, name, description(id), brand, category);
  }

  private static String price(long productId, String price, long version) {
    return String.format(
        "{\"product_id\":%d,\"price\":%s,\"currency\":\"EUR\",\"version\":%d}",
        productId, price, version);
  }

  private void catalog(String... statements) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, catalogUrl)) {
      for (String sql : statements) {
        c.createStatement().execute(sql);
      }
    }
  }

  // --- the copy

  private String copyRow(long id) throws Exception {
    List<String> rows =
        TestDatabases.strings(
            config,
            copyUrl,
            "SELECT name || '|' || "
                + COPY_COLUMNS
                + " FROM "
                + copyTable
                + " WHERE product_id = "
                + id);
    return rows.isEmpty() ? "" : rows.get(0);
  }

  private String copyDescription(long id) throws Exception {
    return TestDatabases.strings(
            config, copyUrl, "SELECT description FROM " + copyTable + " WHERE product_id = " + id)
        .get(0);
  }

  /** Tuples inserted into the copy's TOAST table (what re-sending a large value costs). */
  private long copyToastTuplesWritten() throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, copyUrl)) {
      return TableStats.read(c, copyTable).toastInserted();
    }
  }

  /** Rows inserted, updated or deleted in the copy so far. */
  private long copyStatementsApplied() throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, copyUrl)) {
      TableStats rows = TableStats.read(c, copyTable);
      return rows.inserted() + rows.updated() + rows.deleted();
    }
  }

  private Map<String, String> copiedVersions() throws Exception {
    Map<String, String> versions = new TreeMap<>();
    for (String row :
        TestDatabases.strings(
            config,
            copyUrl,
            "SELECT product_id || '@' || doc_version || '#' || encode(content_hash, 'hex')"
                + " FROM "
                + copyTable)) {
      versions.put(row.substring(0, row.indexOf('@')), row.substring(row.indexOf('@') + 1));
    }
    return versions;
  }

  // --- the index

  private static double price(Map<String, Object> doc) {
    return doc.get("price") == null ? Double.NaN : ((Number) doc.get("price")).doubleValue();
  }

  private Map<String, Object> document(long id) throws Exception {
    var source = SearchDocuments.source(es, config.get(DocumentOptions.ALIAS), Long.toString(id));
    @SuppressWarnings("unchecked")
    Map<String, Object> doc = source == null ? null : Json.mapper().convertValue(source, Map.class);
    return doc;
  }

  private Map<String, Object> awaitDocument(long id, Predicate<Map<String, Object>> done)
      throws Exception {
    Map<String, Object> doc = Await.until(WAIT, () -> document(id), d -> d != null && done.test(d));
    assertThat(doc).as("document %d", id).isNotNull();
    assertThat(done.test(doc)).as("document %d: %s", id, doc).isTrue();
    return doc;
  }

  private Map<String, String> indexedVersions() throws Exception {
    Map<String, String> versions = new TreeMap<>();
    for (var hit : SearchDocuments.hits(es, config.get(DocumentOptions.ALIAS))) {
      versions.put(
          hit.path("_id").asText(),
          hit.path("_version").asLong() + "#" + hit.path("_source").path("content_hash").asText());
    }
    return versions;
  }

  /** Whether the indexer's consumer group has committed the end offset of every input. */
  private boolean replayedToTheEnd() throws Exception {
    return Kafka.consumedToTheEnd(
        DeploymentNames.groupId(SearchIndexJob.NAME), SearchIndexJob.inputs(config));
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
