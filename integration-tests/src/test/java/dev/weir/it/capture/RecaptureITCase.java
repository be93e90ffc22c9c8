package dev.weir.it.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.WeirCli;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.search.SearchIndexJob;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Recovering from a lost replication slot as docs/document-definitions.md says: the source captured
 * again from scratch (a new slot, new change topics, a new snapshot) and search-index started again
 * without state, its copy table and index kept. The new snapshot's rows must win over the versions
 * the earlier capture wrote, at the root and in a child, so that the copy and the index converge to
 * the source.
 */
@ExtendWith(LocalStackExtension.class)
class RecaptureITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(4).build());

  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final List<JobClient> jobs = new ArrayList<>();
  private final List<WeirConfig> captures = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (JobClient job : jobs) {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get();
      }
    }
    for (WeirConfig capture : captures) {
      CatalogCaptureJob.dropSlot(capture);
    }
  }

  @Test
  void aNewSnapshotWinsOverWhatAnEarlierCaptureIndexed() throws Exception {
    WeirConfig first =
        TestDatabases.withFreshCatalog(
            TestDatabases.fresh(LocalStackExtension.config(), "it_recapture"), "it.recapture", run);
    String catalogUrl = first.get(DocumentOptions.CATALOG_URL);
    String alias = first.get(DocumentOptions.ALIAS);
    SearchCluster es = ElasticsearchConnection.cluster(first);
    catalog(
        first,
        "INSERT INTO brand VALUES (1, 'Acme')",
        "INSERT INTO category VALUES (1, 'Outdoor', NULL)",
        product(1, "Trail Backpack 30L"),
        product(2, "Summit Tent"),
        product(3, "Camp Stove"));
    start(first);
    await(es, alias, 1, "Trail Backpack 30L", "Acme");
    await(es, alias, 2, "Summit Tent", "Acme");
    await(es, alias, 3, "Camp Stove", "Acme");
    // Changed after the snapshot: the copy's versions are the stream's LSNs, far above zero.
    catalog(first, "UPDATE product SET name = 'Trail Backpack 31L' WHERE id = 1");
    await(es, alias, 1, "Trail Backpack 31L", "Acme");
    long before = copyVersion(first, 1);

    // The slot is lost; the source changes meanwhile, at the root and in a child.
    stopAll();
    CatalogCaptureJob.dropSlot(first);
    catalog(
        first,
        "UPDATE product SET name = 'Trail Backpack 32L' WHERE id = 1",
        "UPDATE brand SET name = 'Acme Outdoor' WHERE id = 1",
        "DELETE FROM product WHERE id = 3");

    // Captured again from scratch, into new topics; search-index without state.
    WeirConfig second =
        CaptureOptions.ownCatalog(
            first, catalogUrl, "it_recapture_slot2_" + run, "it.recapture2." + run, alias);
    start(second);
    await(es, alias, 1, "Trail Backpack 32L", "Acme Outdoor");
    await(es, alias, 2, "Summit Tent", "Acme Outdoor");
    assertThat(copyVersion(second, 1)).as("the copy's version of document 1").isGreaterThan(before);

    // The join, started without state, never knew product 3: its document is still searchable.
    assertThat(SearchDocuments.source(es, alias, "3"))
        .as("document 3 before the sweep")
        .isNotNull();
    // Reading the root table again sweeps the documents whose root row is gone.
    Path file = dir.resolve("products.json");
    Files.writeString(
        file,
        new String(
                getClass()
                    .getClassLoader()
                    .getResourceAsStream(Definitions.PRODUCTS_RESOURCE)
                    .readAllBytes(),
                StandardCharsets.UTF_8)
            .replace(
                "\"database\": \"catalog\"",
                "\"database\": \"" + DocumentOptions.database(catalogUrl) + "\"")
            .replace("\"index\": \"products\"", "\"index\": \"" + alias + "\"")
            .replace(
                "\"topic\": \"pricing.events\"",
                "\"topic\": \"" + second.get(DocumentOptions.PRICING_TOPIC) + "\""));
    List<String> args =
        new ArrayList<>(List.of("documents", "resnapshot", file.toString(), "product"));
    second.asMap().forEach((k, v) -> args.addAll(List.of("--" + k, v)));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        new CommandLine(new WeirCli())
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args.toArray(String[]::new));
    assertThat(code).as("resnapshot: %s%s", out, err).isZero();
    assertThat(out.toString()).contains("1 documents whose root row is gone deleted");
    assertThat(SearchDocuments.source(es, alias, "3")).as("document 3 after the sweep").isNull();
    assertThat(copyHolds(second, 3)).as("the copy holds document 3").isFalse();
    await(es, alias, 1, "Trail Backpack 32L", "Acme Outdoor");
    await(es, alias, 2, "Summit Tent", "Acme Outdoor");
    // A product with that id created again is indexed: the sweep's version is below its own.
    catalog(second, product(3, "Camp Stove II"));
    await(es, alias, 3, "Camp Stove II", "Acme Outdoor");
  }

  private static boolean copyHolds(WeirConfig config, long id) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT 1 FROM product_document WHERE doc_id = '" + id + "'")) {
      return rs.next();
    }
  }

  private void start(WeirConfig config) throws Exception {
    captures.add(config);
    jobs.add(JobRunner.start(new CatalogCaptureJob(), env(), config));
    jobs.add(JobRunner.start(new SearchIndexJob(), env(), config));
  }

  private void stopAll() throws Exception {
    for (JobClient job : jobs) {
      job.cancel().get();
    }
    jobs.clear();
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }

  private static String product(long id, String name) {
    return String.format(
        "INSERT INTO product (id, sku, name, description, attributes, brand_id, category_id)"
            + " VALUES (%d, 'SKU-%d', '%s', 'A %s', '{}', 1, 1)",
        id, id, name, name);
  }

  private static void catalog(WeirConfig config, String... statements) throws Exception {
    TestDatabases.execute(config, config.get(DocumentOptions.CATALOG_URL), statements);
  }

  /** The doc_version of a document in the copy table. */
  private static long copyVersion(WeirConfig config, long id) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT doc_version FROM product_document WHERE doc_id = '" + id + "'")) {
      assertThat(rs.next()).as("document %d in the copy", id).isTrue();
      return rs.getLong(1);
    }
  }

  private static void await(SearchCluster es, String alias, long id, String name, String brand)
      throws Exception {
    String expected = name + " / " + brand;
    assertThat(
            Await.until(
                WAIT,
                () -> {
                  ObjectNode source = SearchDocuments.source(es, alias, Long.toString(id));
                  if (source == null) {
                    return null;
                  }
                  return source.path("name").asText() + " / " + source.path("brand_name").asText();
                },
                expected::equals))
        .as("document %d", id)
        .isEqualTo(expected);
  }
}
