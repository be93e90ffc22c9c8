package dev.weir.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.documents.index.SearchContract;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.flink.core.execution.JobClient;

/**
 * The search-index part of {@code weir demo}: a catalog database filled, captured (cdc-catalog),
 * joined and indexed (search-index), changed, and searched with the search contract's example
 * queries. Everything is its own: database, slot, topics, alias; recreated on every run.
 */
final class CatalogDemo {

  static final String CATALOG_DATABASE = "weir_demo_catalog";
  static final String ALIAS = "demo-products";

  /** The copy table products.json names. */
  static final String COPY = "product_document";

  private static final int PRODUCTS = 300;
  private static final int BRANDS = 20;
  private static final int CHANGES = 60;

  private CatalogDemo() {}

  /**
   * The catalog's jobs, left running after {@link #run} so that the next section can work beside
   * them; closing cancels them and drops the slot.
   */
  static final class Running implements AutoCloseable {
    final WeirConfig config;
    final SearchCluster es;
    private final List<JobClient> jobs = new ArrayList<>();
    String summary = "search-index: did not finish";

    private Running(WeirConfig config, SearchCluster es) {
      this.config = config;
      this.es = es;
    }

    @Override
    public void close() throws Exception {
      try {
        for (JobClient job : jobs) {
          job.cancel().get();
        }
        CatalogCaptureJob.dropSlot(config);
      } finally {
        es.close();
      }
    }
  }

  /**
   * @param copy the demo's configuration; its database gets the copy table product_document
   * @return the running capture and indexer, to close when done
   */
  static Running run(
      PrintWriter out, LocalStack stack, Connections connections, WeirConfig copy, int webPort)
      throws Exception {
    stack.ensurePostgresDatabase(CATALOG_DATABASE);
    String catalogUrl = connections.postgresJdbcUrl(CATALOG_DATABASE);
    // The bundled products definition (schemas/documents/products.json), with the demo's index
    // and topics.
    WeirConfig config =
        CaptureOptions.ownCatalog(copy, catalogUrl, CATALOG_DATABASE, "demo", ALIAS);
    // A slot left by the previous run would keep its database from being dropped.
    CatalogCaptureJob.dropSlot(config);
    stack.recreatePostgresDatabase(CATALOG_DATABASE);
    // The definition's topics (it cannot be planned before the catalog has its tables).
    KafkaTopics.deleteTopics(
        config,
        List.of(
            CatalogCaptureJob.topic(config, "product"),
            CatalogCaptureJob.topic(config, "brand"),
            CatalogCaptureJob.topic(config, "category"),
            config.get(DocumentOptions.PRICING_TOPIC)));
    SearchCluster es = ElasticsearchConnection.cluster(config);
    Running running = new Running(config, es);
    try {
      // Deleting by wildcard is refused (action.destructive_requires_name): name each index.
      for (String index : es.indices(ALIAS + "-*")) {
        es.deleteIndex(index);
      }

      out.printf(
          "== 5. search-index: catalog database %s → cdc-catalog (Debezium) → Kafka → join →"
              + " %s + Elasticsearch alias %s, the document declared in"
              + " schemas/documents/products.json%n",
          CATALOG_DATABASE, COPY, ALIAS);
      CatalogLoader loader = new CatalogLoader(42);
      CatalogLoader.Result filled =
          loader.load(
              config,
              catalogUrl,
              config.get(DocumentOptions.PRICING_TOPIC),
              PRODUCTS,
              BRANDS,
              0,
              Duration.ZERO);
      out.printf(
          "   catalog filled: %d products (descriptions of ~6 kB: TOASTed), %d brands, 52 categories"
              + " in 3 levels; %d prices on %s%n",
          filled.filled(), BRANDS, filled.prices(), config.get(DocumentOptions.PRICING_TOPIC));
      out.flush();
      running.jobs.add(
          JobRunner.start(
              new CatalogCaptureJob(), RunCommand.localEnvironment(webPort + 1), config));
      running.jobs.add(
          JobRunner.start(new SearchIndexJob(), RunCommand.localEnvironment(webPort + 2), config));
      long[] indexed = DemoCommand.awaitStable(() -> documents(config, es));
      out.printf(
          "   indexed: %d rows in %s, %d documents behind %s (web UIs: :%d, :%d)%n",
          indexed[0], COPY, indexed[2], ALIAS, webPort + 1, webPort + 2);
      TableStats before = copyStats(config);

      CatalogLoader.Result changed =
          loader.load(
              config,
              catalogUrl,
              config.get(DocumentOptions.PRICING_TOPIC),
              PRODUCTS,
              BRANDS,
              CHANGES,
              Duration.ofMillis(20));
      out.printf("== 6. %d changes to the catalog and its prices:", CHANGES);
      changed.changes().forEach((kind, n) -> out.printf(" %d %s,", n, kind));
      out.println();
      out.flush();
      long[] after = DemoCommand.awaitStable(() -> documents(config, es));
      TableStats written = copyStats(config).minus(before);
      out.printf(
          "   %s: %d rows updated (only the changed columns), %d inserted, %d deleted;"
              + " %d TOAST tuples written (only description edits send a description: %d)%n",
          COPY,
          written.updated(),
          written.inserted(),
          written.deleted(),
          written.toastInserted(),
          changed.changes().getOrDefault("description edit", 0));
      out.printf("   now %d rows in %s, %d documents behind %s%n", after[0], COPY, after[2], ALIAS);

      out.printf(
          "== 7. the search contract's example queries (docs/search-contract.md, schemas/elasticsearch/examples)"
              + " on %s%n",
          ALIAS);
      for (String name : SearchContract.EXAMPLE_QUERIES) {
        printQuery(out, es, name);
      }
      running.summary =
          String.format(
              "cdc-catalog + search-index: %d products captured and indexed, %d changes"
                  + " applied; %d documents behind %s",
              filled.filled(), CHANGES, after[2], ALIAS);
      return running;
    } catch (Exception | Error e) {
      running.close();
      throw e;
    }
  }

  /** Rows in the copy, a digest of their versions, documents in Elasticsearch. */
  private static long[] documents(WeirConfig config, SearchCluster es) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT count(*), coalesce(sum(doc_version::numeric), 0)::text FROM " + COPY)) {
      rs.next();
      es.refresh(ALIAS);
      return new long[] {rs.getLong(1), rs.getString(2).hashCode(), es.count(ALIAS)};
    }
  }

  private static TableStats copyStats(WeirConfig config) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return TableStats.read(c, COPY);
    }
  }

  /** Runs example query {@code name} on the alias, prints it and its first hits; all its hits. */
  static List<ObjectNode> printQuery(PrintWriter out, SearchCluster es, String name)
      throws Exception {
    String body = SearchContract.exampleQuery(name);
    JsonNode query = Json.mapper().readTree(body).get("query");
    out.printf("   %s: %s%n", name, query);
    List<ObjectNode> hits = SearchContract.search(es, ALIAS, body);
    if (hits.isEmpty()) {
      out.println("     (no hits)");
    }
    for (ObjectNode hit : hits.subList(0, Math.min(5, hits.size()))) {
      out.printf(
          "     #%-4d %-34s %-22s %8s %-3s %s%n",
          hit.path("product_id").asLong(),
          hit.path("name").asText(),
          hit.path("brand_name").asText(""),
          hit.path("price").isNumber() ? String.format("%.2f", hit.get("price").doubleValue()) : "",
          hit.path("currency").asText(""),
          hit.has("category_path") ? String.join(" > ", strings(hit.get("category_path"))) : "");
    }
    out.flush();
    return hits;
  }

  private static List<String> strings(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
  }
}
