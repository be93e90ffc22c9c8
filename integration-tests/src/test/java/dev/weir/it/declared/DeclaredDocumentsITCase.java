package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.WeirCli;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.ChangeTopicNames;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.it.TestDatabases.Source;
import dev.weir.it.engines.EverySearchEngine;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * A declared document on the real stack: the library database (schemas/documents/library.sql) →
 * cdc-catalog capturing exactly the tables of schemas/documents/library.json → Kafka → search-index
 * → the copy and the index. After every change, every document in Elasticsearch and in the copy
 * equals the one a SQL query over the source tables builds ({@link SqlDocuments}).
 */
@ExtendWith(LocalStackExtension.class)
class DeclaredDocumentsITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(8).build());

  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private WeirConfig config;
  private Path file;
  private String libraryUrl;
  private DocumentPlan plan;
  private SearchCluster es;
  private JobClient capture;
  private JobClient indexer;

  @AfterEach
  void stop() throws Exception {
    DocumentSides.stop(config, capture, indexer);
  }

  @Test
  void everyChangeAtEveryDepthReachesEveryDocumentItAffects() throws Exception {
    start(
        "INSERT INTO continent VALUES ('eu', 'Europe'), ('as', 'Asia')",
        "INSERT INTO country VALUES ('uk', 'United Kingdom', 'eu'), ('in', 'India', 'as')",
        "INSERT INTO city VALUES ('c-motihari', 'Motihari', 'in'), ('c-london', 'London', 'uk')",
        "INSERT INTO author VALUES ('a-orwell', 'George Orwell', 'c-motihari'),"
            + " ('a-huxley', 'Aldous Huxley', 'c-london')",
        "INSERT INTO publisher VALUES ('p-secker', 'Secker & Warburg'), ('p-chatto', 'Chatto')",
        "INSERT INTO subject VALUES (1, 'Dystopia'), (2, 'Politics'), (10, 'Satire')",
        book("b-1984", "Nineteen Eighty-Four", "p-secker"),
        book("b-farm", "Animal Farm", "p-secker"),
        book("b-brave", "Brave New World", "p-chatto"),
        "INSERT INTO book_author VALUES ('b-1984', 'a-orwell'), ('b-farm', 'a-orwell'),"
            + " ('b-brave', 'a-huxley')",
        "INSERT INTO book_subject VALUES ('b-1984', 1), ('b-1984', 2), ('b-farm', 10)",
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000001', 'b-1984', 5, 'Chilling')");
    awaitConverged("the snapshot");
    // The change topics keep every row's latest change, whatever its age: the indexer's truth.
    for (String topic : new CatalogCaptureJob().topics(config)) {
      assertThat(cleanupPolicy(topic)).as(topic).isEqualTo("compact");
    }
    JsonNode doc = indexed().get("b-1984");
    assertThat(doc.at("/authors/0/city/country/continent").asText()).isEqualTo("Asia");
    assertThat(doc.get("subjects").toString()).isEqualTo("[\"Dystopia\",\"Politics\"]");

    // A root change that leaves the large description alone: no TOAST tuple written to the copy.
    long toast = copyToastTuples();
    change("UPDATE book SET price = 12.50 WHERE isbn = 'b-1984'");
    awaitConverged("a root change");
    assertThat(copyToastTuples()).as("TOAST tuples written to the copy").isEqualTo(toast);

    change("UPDATE publisher SET name = 'Secker and Warburg' WHERE id = 'p-secker'");
    awaitConverged("a one-to-one parent-side row renamed (every book of the publisher)");

    change(
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000002', 'b-farm', 4, 'Sharp')");
    change("UPDATE review SET stars = 4 WHERE id = '00000000-0000-0000-0000-000000000001'");
    awaitConverged("one-to-many children added and changed");

    change("INSERT INTO book_author VALUES ('b-brave', 'a-orwell')");
    change("DELETE FROM book_subject WHERE book_isbn = 'b-1984' AND subject_id = 2");
    awaitConverged("through rows added and removed");

    change("UPDATE continent SET name = 'Asia (continent)' WHERE id = 'as'");
    awaitConverged("a row four levels down renamed");

    change(
        "UPDATE review SET book_isbn = 'b-brave' WHERE id = '00000000-0000-0000-0000-000000000002'");
    change("UPDATE author SET city_id = 'c-london' WHERE id = 'a-orwell'");
    awaitConverged("foreign keys that move a child to another parent");

    change("DELETE FROM book WHERE isbn = 'b-farm'");
    awaitConverged("a parent deleted while its reviews remain");
    change(book("b-farm", "Animal Farm (new edition)", "p-chatto"));
    awaitConverged("the parent back: its reviews with it");

    // Changes in one transaction across every level.
    change(
        "UPDATE country SET continent_id = 'eu' WHERE code = 'in'",
        "INSERT INTO subject VALUES (3, 'Allegory')",
        "INSERT INTO book_subject VALUES ('b-farm', 3)",
        "DELETE FROM publisher WHERE id = 'p-chatto'");
    awaitConverged("a transaction touching every level");

    // Bad input: change events of other writers with values not of their column's type go to the
    // DLQ with the reason, before they reach state; the job goes on.
    String subjects = config.get(DocumentOptions.CDC_TOPIC_PREFIX) + "subject";
    Kafka.produceKeyed(
        subjects,
        "{\"id\":\"bad\"}", // a compacted topic takes no record without a key
        List.of(
            "{\"op\":\"c\",\"after\":{\"id\":1.5,\"name\":\"Half\"},\"source\":{\"lsn\":1}}",
            "{\"op\":\"c\",\"after\":{\"id\":\"18446744073709551617\",\"name\":\"Huge\"},"
                + "\"source\":{\"lsn\":2}}"));
    List<String> reasons = new ArrayList<>();
    for (var letter :
        Kafka.readCommitted(config.get(WeirOptions.DLQ_TOPIC), WAIT, r -> r.size() >= 2)) {
      reasons.add(Json.mapper().readTree(letter.value()).path("reason").asText());
    }
    assertThat(reasons)
        .containsExactlyInAnyOrder(
            "unreadable change event of public.subject: 'id' is not an integer: 1.5",
            "unreadable change event of public.subject: 'id' is not an integer:"
                + " 18446744073709551617");
    change("UPDATE subject SET name = 'Fables' WHERE id = 3");
    awaitConverged("a change after bad input");

    // A replay of every topic from the beginning with a job started without state leaves every
    // document and its version as they were, in the index and in the copy: it writes a document
    // only once every topic has been read up to its changes (see docs/document-definitions.md).
    Map<String, JsonNode> before = indexed();
    Map<String, Long> indexedVersions = indexedVersions();
    Map<String, Long> copiedVersions = copiedVersions();
    indexer.cancel().get();
    Kafka.deleteGroup(DeploymentNames.groupId(SearchIndexJob.NAME), WAIT);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
    assertThat(
            Await.until(
                WAIT,
                () ->
                    Kafka.consumedToTheEnd(
                        DeploymentNames.groupId(SearchIndexJob.NAME),
                        SearchIndexJob.inputs(config)),
                done -> done))
        .as("the new job has read every topic to its end")
        .isTrue();
    awaitConverged("a replay from the beginning");
    assertThat(indexed()).isEqualTo(before);
    assertThat(indexedVersions()).isEqualTo(indexedVersions);
    assertThat(copiedVersions()).isEqualTo(copiedVersions);
  }

  /**
   * A few thousand random inserts, updates and deletes across every table, in transactions of
   * several statements, foreign keys kept valid: zero differences. The seed is printed, so a
   * failure can be replayed ({@code -Dweir.declared.seed=N} runs that seed as well).
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {20261124L, 7L})
  void randomChangesEverywhereEndInTheDocumentsOfTheSqlJoin(long seed) throws Exception {
    long chosen = Long.getLong("weir.declared.seed", seed);
    System.out.println("DeclaredDocumentsITCase random changes: seed " + chosen);
    start();
    RandomLibrary library = new RandomLibrary(new Random(chosen));
    try (Connection c = PostgresConnectionProvider.open(config, libraryUrl)) {
      c.setAutoCommit(false);
      for (int transaction = 0; transaction < 600; transaction++) {
        library.transaction(c, 2 + transaction % 5);
      }
    }
    awaitConverged("random changes, seed " + chosen);
  }

  /**
   * Issue 25's version assumptions, on the declared join: after a re-snapshot with a new slot (the
   * old one lost), after change events without an LSN, and after a source whose LSNs start lower (a
   * catalog moved to a new cluster: its snapshot and changes, as the capture would write them), a
   * later change still reaches every document: none is dropped as stale.
   */
  @Test
  void versionsSurviveAReSnapshotANewClusterAndChangesWithoutLsn() throws Exception {
    start(
        "INSERT INTO publisher VALUES ('p-secker', 'Secker & Warburg')",
        "INSERT INTO subject VALUES (1, 'Dystopia'), (2, 'Politics')",
        book("b-1984", "Nineteen Eighty-Four", "p-secker"),
        book("b-farm", "Animal Farm", "p-secker"),
        "INSERT INTO book_subject VALUES ('b-1984', 1), ('b-1984', 2), ('b-farm', 2)");
    awaitConverged("the snapshot");

    // 1. The replication slot lost: the capture starts again on a new slot and snapshots every
    // row again, at LSNs no higher than the rows' last changes.
    capture.cancel().get();
    CatalogCaptureJob.dropSlot(config);
    change("UPDATE publisher SET name = 'Renamed while no slot was there' WHERE id = 'p-secker'");
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    awaitConverged("a re-snapshot after a lost slot");
    change("UPDATE publisher SET name = 'Secker and Warburg' WHERE id = 'p-secker'");
    awaitConverged("a rename after the re-snapshot");

    // 2. A change event without an LSN (another writer's): applied after the row's last change;
    // a rename after it still reaches the documents.
    String subjects = config.get(DocumentOptions.CDC_TOPIC_PREFIX) + "subject";
    Kafka.produceKeyed(
        subjects,
        "{\"id\":2}",
        List.of("{\"op\":\"u\",\"after\":{\"id\":2,\"name\":\"No LSN\"},\"source\":{}}"));
    assertThat(
            Await.until(WAIT, () -> indexed().get("b-farm").toString(), d -> d.contains("No LSN")))
        .contains("No LSN");
    change("UPDATE subject SET name = 'Politics and language' WHERE id = 2");
    awaitConverged("a rename after a change without an LSN");

    // 3. The catalog on a new cluster: its snapshot and its first change come with LSNs far below
    // the old cluster's (the row's last change here, at this cluster's LSN, comes first). They are
    // applied, and so is a rename after them.
    change("UPDATE subject SET name = 'Dystopia, old cluster' WHERE id = 1");
    awaitConverged("a change on the old cluster");
    Kafka.produceKeyed(
        subjects,
        "{\"id\":1}",
        List.of(
            "{\"op\":\"r\",\"after\":{\"id\":1,\"name\":\"New cluster\"},\"source\":{\"lsn\":100}}",
            "{\"op\":\"u\",\"after\":{\"id\":1,\"name\":\"New cluster, renamed\"},"
                + "\"source\":{\"lsn\":200}}"));
    assertThat(
            Await.until(
                WAIT,
                () -> indexed().get("b-1984").toString(),
                d -> d.contains("New cluster, renamed")))
        .contains("New cluster, renamed");
    change("UPDATE subject SET name = 'Dystopian fiction' WHERE id = 1");
    awaitConverged("a rename after a new cluster's snapshot");
  }

  /**
   * A TRUNCATE is applied: of a child table, its rows leave every document; of the root (cascading
   * to its link tables), every document leaves the index and the copy. Rows written after the
   * truncates join as before, and the jobs never restart.
   */
  @Test
  void aTruncateRemovesItsTableFromTheDocumentsAndLaterRowsJoinAgain(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    start(
        "INSERT INTO publisher VALUES ('p-secker', 'Secker & Warburg')",
        book("b-1984", "Nineteen Eighty-Four", "p-secker"),
        book("b-farm", "Animal Farm", "p-secker"),
        "INSERT INTO subject VALUES (1, 'Dystopia')",
        "INSERT INTO book_subject VALUES ('b-1984', 1)",
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000001', 'b-1984', 5, 'Chilling')");
    awaitConverged("the snapshot");

    change("TRUNCATE review");
    awaitConverged("a child table truncated");
    change("TRUNCATE book CASCADE"); // book_author and book_subject with it
    awaitConverged("the root truncated");
    assertThat(indexed()).as("the index after the root's truncate").isEmpty();

    change(
        book("b-farm", "Animal Farm", "p-secker"),
        "INSERT INTO book_subject VALUES ('b-farm', 1)",
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000002', 'b-farm', 4, 'Sharp')");
    awaitConverged("rows written after the truncates");
    assertThat(indexed()).containsOnlyKeys("b-farm");
    DocumentSides.assertRunningWithoutRestarts(flink, capture, indexer);
  }

  /**
   * Changes the capture never saw (the table out of its publication for a while: a review deleted,
   * one changed, one added) leave the documents wrong until {@code weir documents resnapshot FILE
   * review} reads that one table again while the jobs run: then every document equals the source,
   * no other table's topic receives anything, and a change after it still applies.
   */
  @Test
  void aResnapshotOfOneTableBringsTheDocumentsBackToTheSource(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    start(
        "INSERT INTO publisher VALUES ('p-secker', 'Secker & Warburg')",
        book("b-1984", "Nineteen Eighty-Four", "p-secker"),
        book("b-farm", "Animal Farm", "p-secker"),
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000001', 'b-1984', 5, 'Chilling')",
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000002', 'b-farm', 4, 'Sharp')");
    awaitConverged("the snapshot");

    String publication = CaptureOptions.publication(config, plan.database(), false);
    change("ALTER PUBLICATION " + publication + " DROP TABLE review");
    change(
        "DELETE FROM review WHERE id = '00000000-0000-0000-0000-000000000001'",
        "UPDATE review SET stars = 1 WHERE id = '00000000-0000-0000-0000-000000000002'",
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000003', 'b-farm', 3, 'Dated')");
    change("ALTER PUBLICATION " + publication + " ADD TABLE review");
    change("UPDATE book SET title = 'Animal Farm: A Fairy Story' WHERE isbn = 'b-farm'");
    Await.until(WAIT, () -> indexed().get("b-farm").toString(), d -> d.contains("A Fairy Story"));
    assertThat(indexed().get("b-1984").toString())
        .as("the deleted review, still in its document before the resnapshot")
        .contains("Chilling");

    List<String> topics = Definitions.topics(config, List.of(plan));
    Map<TopicPartition, Long> before = Kafka.endOffsets(topics);
    List<String> args =
        new ArrayList<>(List.of("documents", "resnapshot", file.toString(), "review"));
    config.asMap().forEach((key, value) -> args.addAll(List.of("--" + key, value)));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = WeirCli.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute(args.toArray(String[]::new))).as("%s%s", out, err).isZero();
    assertThat(out.toString()).contains("2 rows written").contains("reset written");
    awaitConverged("after the resnapshot of review");

    Map<TopicPartition, Long> after = Kafka.endOffsets(topics);
    String reviews = ChangeTopicNames.of(config).topic(plan.database(), "public", "review");
    before.forEach(
        (partition, end) -> {
          if (!partition.topic().equals(reviews)) {
            assertThat(after.get(partition)).as("%s: not read again", partition).isEqualTo(end);
          }
        });
    change("UPDATE review SET stars = 2 WHERE id = '00000000-0000-0000-0000-000000000003'");
    awaitConverged("a change after the resnapshot");
    DocumentSides.assertRunningWithoutRestarts(flink, capture, indexer);
  }

  /**
   * Soft deletes as row filters ({@code weir.where}): a review whose {@code deleted_at} is set
   * leaves its book's reviews, a book whose {@code deleted_at} is set leaves the index and the
   * copy; clearing it brings each back, its children with it, without the source being read again.
   */
  @Test
  void softDeletedRowsLeaveTheirDocumentsAndComeBack() throws Exception {
    start(
        definition ->
            definition
                .replace(
                    "\"transform\": {\"rename\": {\"published\": \"published_on\"}},",
                    "\"transform\": {\"rename\": {\"published\": \"published_on\"}},"
                        + " \"weir\": {\"where\": \"deleted_at IS NULL\"},")
                .replace(
                    "\"columns\": [\"id\", \"stars\", \"body\"],",
                    "\"columns\": [\"id\", \"stars\", \"body\"],"
                        + " \"weir\": {\"where\": \"deleted_at IS NULL AND stars >= 2\"},"),
        List.of(
            "ALTER TABLE book ADD COLUMN deleted_at timestamptz",
            "ALTER TABLE review ADD COLUMN deleted_at timestamptz"),
        "INSERT INTO publisher VALUES ('p-secker', 'Secker & Warburg')",
        book("b-1984", "Nineteen Eighty-Four", "p-secker"),
        book("b-farm", "Animal Farm", "p-secker"),
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000001', 'b-1984', 5,"
            + " 'Chilling'), ('00000000-0000-0000-0000-000000000002', 'b-1984', 1, 'Dull'),"
            + " ('00000000-0000-0000-0000-000000000003', 'b-farm', 4, 'Sharp')");
    awaitConverged("the snapshot");
    assertThat(indexed().get("b-1984").get("reviews")).hasSize(1);

    change(
        "UPDATE review SET deleted_at = now() WHERE id = '00000000-0000-0000-0000-000000000001'");
    awaitConverged("a child soft-deleted");
    assertThat(indexed().get("b-1984").get("reviews")).isEmpty();

    change("UPDATE book SET deleted_at = now() WHERE isbn = 'b-farm'");
    awaitConverged("a root soft-deleted");
    assertThat(indexed()).doesNotContainKey("b-farm").containsKey("b-1984");
    assertThat(copied()).doesNotContainKey("b-farm");

    change(
        "UPDATE review SET stars = 3 WHERE id = '00000000-0000-0000-0000-000000000003'",
        "UPDATE book SET deleted_at = NULL WHERE isbn = 'b-farm'",
        "UPDATE review SET deleted_at = NULL WHERE id = '00000000-0000-0000-0000-000000000001'",
        "UPDATE review SET stars = 2 WHERE id = '00000000-0000-0000-0000-000000000002'");
    awaitConverged("both restored, a child changed while its root was out");
    assertThat(indexed().get("b-1984").get("reviews")).hasSize(2);
    assertThat(indexed().get("b-farm").at("/reviews/0/stars").asInt()).isEqualTo(3);
  }

  /**
   * One file, two documents, each on its own database, neither the catalog URL's: each is read,
   * captured (a slot and publication per database, named after it) and indexed from its own
   * database, and a change in either reaches its documents.
   */
  @Test
  void documentsOnTwoDatabasesOfOneFileAreEachReadInTheirOwn() throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_declared");
    String[] databases = {"it_library_a_" + run, "it_library_b_" + run};
    String[] urls = new String[2];
    StringBuilder file = new StringBuilder("[");
    for (int i = 0; i < 2; i++) {
      LocalStackExtension.stack().ensurePostgresDatabase(databases[i]);
      urls[i] = LocalStackExtension.connections().postgresJdbcUrl(databases[i]);
      TestDatabases.execute(base, urls[i], resource("weir/schemas/documents/library.sql"));
      String document =
          resource("weir/schemas/documents/library.json")
              .replace("\"database\": \"library\"", "\"database\": \"" + databases[i] + "\"")
              .replace("\"index\": \"books\"", "\"index\": \"it-books-" + i + "-" + run + "\"")
              .replace("book_document", "book_document_" + i)
              .strip();
      // Each file is a list of one document: the two documents in one list.
      file.append(i == 0 ? "" : ",").append(document, 1, document.length() - 1);
    }
    Path definition = Files.writeString(dir.resolve("two.json"), file.append("]").toString());
    String server = DocumentOptions.withDatabase(urls[0], "postgres");
    config =
        CaptureOptions.ownCatalog(
                base, server, "it_two_" + run, "it.two." + run, "it-unused-" + run)
            .with(DocumentOptions.DOCUMENTS, definition.toString())
            .with(WeirOptions.DLQ_TOPIC, "it.two.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    List<DocumentPlan> plans = Definitions.plans(config);
    assertThat(plans).extracting(DocumentPlan::database).containsExactly(databases);
    es = ElasticsearchConnection.cluster(config);
    for (int i = 0; i < 2; i++) {
      TestDatabases.execute(
          base,
          urls[i],
          "INSERT INTO publisher VALUES ('p-" + i + "', 'Publisher of database " + i + "')",
          book("b-" + i, "A book of database " + i, "p-" + i));
    }
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
    for (int i = 0; i < 2; i++) {
      awaitConverged("the snapshot of database " + i, plans.get(i), urls[i]);
      assertThat(indexed(plans.get(i))).containsOnlyKeys("b-" + i);
    }
    assertThat(
            TestDatabases.strings(
                base,
                server,
                "SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE 'it_two_%'"
                    + " ORDER BY 1"))
        // Flink CDC may hold a slot of its own for a snapshot reader (<slot>_0) a while.
        .contains("it_two_" + run + "_" + databases[0], "it_two_" + run + "_" + databases[1]);

    TestDatabases.execute(
        base, urls[1], "UPDATE publisher SET name = 'Renamed in database 1' WHERE id = 'p-1'");
    awaitConverged("a change in the second database", plans.get(1), urls[1]);
    assertThat(indexed(plans.get(1)).get("b-1").at("/publisher/name").asText())
        .isEqualTo("Renamed in database 1");
    assertThat(indexed(plans.get(0)).get("b-0").at("/publisher/name").asText())
        .isEqualTo("Publisher of database 0");
  }

  /**
   * Generated rows of a column of every PostgreSQL type (see {@link EveryType}), inserted and then
   * changed: every document in the index and the copy equals PostgreSQL's own {@code to_jsonb} of
   * its row (the SQL join), and none is kept out of the index. The seed is printed ({@code
   * -Dweir.types.seed=N} runs another).
   */
  @Test
  void everyTypeRoundTripsAsToJsonbWrites() throws Exception {
    long seed = Long.getLong("weir.types.seed", 20261128L);
    System.out.println("DeclaredDocumentsITCase every type: seed " + seed);
    EveryType types = new EveryType(new Random(seed));
    List<String> keys = new ArrayList<>();
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      keys.add(types.key(i));
      rows.add(types.upsert(keys.get(i)));
    }
    start(EveryType.DEFINITION, EveryType.SCHEMA, rows.toArray(String[]::new));
    awaitConvergedNamingDeadLetters("generated rows of every type, seed " + seed);
    assertThat(indexed()).hasSize(60);

    List<String> changes = new ArrayList<>();
    for (int i = 0; i < 60; i += 3) {
      changes.add(types.upsert(keys.get(i)));
    }
    change(changes.toArray(String[]::new));
    awaitConvergedNamingDeadLetters("every third row changed, seed " + seed);
  }

  /** {@link #awaitConverged}, naming what the DLQ holds (a value refused) if it fails. */
  private void awaitConvergedNamingDeadLetters(String step) throws Exception {
    try {
      awaitConverged(step);
    } catch (AssertionError e) {
      List<String> reasons = new ArrayList<>();
      for (var letter :
          Kafka.readCommitted(
              config.get(WeirOptions.DLQ_TOPIC), Duration.ofSeconds(5), r -> false)) {
        reasons.add(Json.mapper().readTree(letter.value()).path("reason").asText());
      }
      throw new AssertionError(e.getMessage() + "\nweir.dlq: " + reasons, e);
    }
  }

  /**
   * PGSync's own example, examples/book/schema.json, as it is but for what weir refuses (its
   * plugins, Python classes): its setting, mapping and mappings, routing, transforms (rename,
   * replace, concat, move) and JSON paths give, on a fixture of its tables
   * (src/test/resources/pgsync), the documents PGSync gives, written out here, each at its routing;
   * and after changes at every depth, the documents PGSync gives then.
   */
  @EverySearchEngine
  @Test
  void pgsyncsBookExampleGivesPgsyncsDocuments() throws Exception {
    ObjectNode example =
        (ObjectNode) Json.mapper().readTree(resource("pgsync/book-schema.json")).get(0);
    example.remove("plugins");
    // The stack's Elasticsearch (its integration-test build) has no analysis-common module: its
    // ngram tokenizer and lowercase filter are not there. The analyzer keeps its name and place.
    ((ObjectNode) example.at("/setting/analysis/tokenizer/ngram_tokenizer"))
        .removeAll()
        .put("type", "standard");
    ((ObjectNode) example.at("/setting/analysis/analyzer/ngram_analyzer")).remove("filter");
    start("[" + example + "]", List.of(resource("pgsync/book.sql")));
    ObjectNode one =
        (ObjectNode)
            json(
                """
            {"book_id": 1, "book_isbn": "XX1", "book_title": "Nineteen Eighty-Four",
             "description": "Big Brother", "tags": ["classic", "novel"],
             "doc_firstname": "George", "doc_coordinates": [51.5, -0.1], "doc_a,b,c_4": "four",
             "doc_x": [{"y": 1}, {"z": "zed"}], "doc_x_0_y": 1, "doc_x_1_z": "zed",
             "publish_date": "1949-06-08T00:00:00",
             "publisher_label": {"publisher_name": "Secker-Warburg", "publisher_id": 1,
                                 "is_active": true, "xyz": "1_Secker-Warburg_True_foo",
                                 "abc": "1-Secker-Warburg-True-bar"},
             "book_languages": [{"book_isbn": "001", "language_id": 1},
                                {"book_isbn": "001", "language_id": 2}],
             "authors": [{"id": 1, "name": "George Orwell", "date_of_birth": "1903-06-25T00:00:00",
                          "city_label": {"name": "Motihari", "id": 2,
                                         "country_label": {"name": "India", "id": 2,
                                                           "continent_label": {"name": "Asia"}}}}],
             "languages": ["en=GB", "fr=FR"], "subjects": ["Dystopia", "Politics"],
             "ratings": {"value": 4.5}}
            """);
    ObjectNode two =
        (ObjectNode)
            json(
                """
            {"book_id": 2, "book_isbn": "1XX2", "book_title": "Brave New World",
             "description": null, "tags": null, "doc_firstname": "Aldous", "doc_coordinates": null,
             "doc_a,b,c_4": null, "doc_x": null, "doc_x_0_y": null, "doc_x_1_z": null,
             "publish_date": null,
             "publisher_label": {"publisher_name": "Chatto", "publisher_id": 2, "is_active": false,
                                 "xyz": "2_Chatto_foo", "abc": "2-Chatto-bar"},
             "book_languages": [{"book_isbn": "1002", "language_id": 1}],
             "authors": [{"id": 2, "name": "Aldous Huxley", "date_of_birth": "1894-07-26T08:30:00",
                          "city_label": {"name": "London", "id": 1,
                                         "country_label": {"name": "United Kingdom", "id": 1,
                                                           "continent_label": {"name": "Europe"}}}}],
             "languages": ["en=GB"], "subjects": ["Dystopia"], "ratings": null}
            """);
    awaitBooks("the snapshot", one, two);
    // Each at its routing, the file's book_isbn.
    assertThat(SearchDocuments.get(es, plan.index(), "1", "XX1").path("_routing").asText())
        .isEqualTo("XX1");
    assertThat(SearchDocuments.get(es, plan.index(), "2", "1XX2").path("_routing").asText())
        .isEqualTo("1XX2");

    change(
        "UPDATE continent SET name = 'Eurasia' WHERE id = 1",
        "UPDATE publisher SET is_active = true WHERE id = 2",
        "UPDATE language SET code = 'de-DE' WHERE id = 2",
        "UPDATE book SET doc = '{\"firstname\": \"Eric\", \"x\": [{\"y\": 2}]}' WHERE id = 1",
        "DELETE FROM rating WHERE id = 1",
        "INSERT INTO rating (id, book_isbn, value) VALUES (2, '1002', 3)",
        "DELETE FROM book_subject WHERE id = 2");
    ((ObjectNode) two.at("/authors/0/city_label/country_label/continent_label"))
        .put("name", "Eurasia");
    ((ObjectNode) two.get("publisher_label"))
        .put("is_active", true)
        .put("xyz", "2_Chatto_True_foo")
        .put("abc", "2-Chatto-True-bar");
    two.set("ratings", json("{\"value\": 3.0}"));
    one.set("languages", json("[\"en=GB\", \"de=DE\"]"));
    one.put("doc_firstname", "Eric")
        .putNull("doc_coordinates")
        .putNull("doc_a,b,c_4")
        .putNull("doc_x_1_z")
        .put("doc_x_0_y", 2)
        .set("doc_x", json("[{\"y\": 2}]"));
    one.putNull("ratings").set("subjects", json("[\"Dystopia\"]"));
    awaitBooks("changes at every depth", one, two);
  }

  /** The index and the copy hold exactly these two books, as PGSync writes them. */
  private void awaitBooks(String step, ObjectNode one, ObjectNode two) throws Exception {
    Map<String, JsonNode> expected =
        Map.of("1", SqlDocuments.normalized(one), "2", SqlDocuments.normalized(two));
    Map<String, JsonNode> indexed = Await.until(WAIT, this::indexed, expected::equals);
    assertThat(differences(expected, indexed)).as("%s: Elasticsearch", step).isEmpty();
    assertThat(differences(expected, copied())).as("%s: the copy", step).isEmpty();
  }

  private static JsonNode json(String text) throws Exception {
    return Json.mapper().readTree(text);
  }

  // --- the stack

  private String cleanupPolicy(String topic) throws Exception {
    var resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (var admin = KafkaClients.admin(config)) {
      return admin
          .describeConfigs(List.of(resource))
          .all()
          .get()
          .get(resource)
          .get(TopicConfig.CLEANUP_POLICY_CONFIG)
          .value();
    }
  }

  private void start(String... statements) throws Exception {
    start(definition -> definition, List.of(), statements);
  }

  /**
   * @param edit changes to schemas/documents/library.json
   * @param ddl statements run on the library database before the definition is planned
   */
  private void start(UnaryOperator<String> edit, List<String> ddl, String... statements)
      throws Exception {
    List<String> schema = new ArrayList<>();
    schema.add(resource("weir/schemas/documents/library.sql"));
    schema.addAll(ddl);
    start(edit.apply(resource("weir/schemas/documents/library.json")), schema, statements);
  }

  /**
   * Runs the capture and the indexer of {@code definition} (its database and index renamed to this
   * run's) over a new database made by {@code schema}, holding the rows {@code statements} insert.
   */
  private void start(String definition, List<String> schema, String... statements)
      throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_declared");
    Source library =
        TestDatabases.freshSource(base, "it_library_" + run, schema.toArray(String[]::new));
    libraryUrl = library.url();
    file = dir.resolve("definition.json");
    Files.writeString(
        file,
        definition
            .replaceFirst(
                "\"database\"\\s*:\\s*\"[^\"]*\"", "\"database\": \"" + library.database() + "\"")
            .replaceFirst("\"index\"\\s*:\\s*\"([^\"]*)\"", "\"index\": \"it-$1-" + run + "\""));
    config = TestDatabases.declaring(base, library, file, "it.declared", run);
    plan = Definitions.plans(config).get(0);
    es = ElasticsearchConnection.cluster(config);
    if (statements.length > 0) {
      change(statements);
    }
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
  }

  private static String book(String isbn, String title, String publisher) {
    return String.format(
        "INSERT INTO book VALUES ('%s', '%s', '%s', 9.99, '1949-06-08', '{\"shelf\": \"classics\"}',"
            + " '%s')",
        isbn, title, RandomLibrary.description(isbn.hashCode()), publisher);
  }

  /** Runs the statements in one transaction of the library database. */
  private void change(String... statements) throws Exception {
    TestDatabases.transaction(config, libraryUrl, statements);
  }

  // --- what each side holds

  private record Sides(
      Map<String, JsonNode> expected, Map<String, JsonNode> indexed, Map<String, JsonNode> copied) {
    boolean converged() {
      return expected.equals(indexed) && expected.equals(copied);
    }
  }

  private void awaitConverged(String step) throws Exception {
    awaitConverged(step, plan, libraryUrl);
  }

  /** Every document of {@code plan} as the SQL join over its database at {@code url} gives it. */
  private void awaitConverged(String step, DocumentPlan plan, String url) throws Exception {
    Sides sides = Await.until(WAIT, () -> sides(plan, url), Sides::converged);
    assertThat(differences(sides.expected(), sides.indexed()))
        .as("%s: Elasticsearch, the fields that differ", step)
        .isEmpty();
    assertThat(differences(sides.expected(), sides.copied()))
        .as("%s: the copy, the fields that differ", step)
        .isEmpty();
    assertThat(sides.indexed()).as("%s: Elasticsearch", step).isEqualTo(sides.expected());
    assertThat(sides.copied()).as("%s: the copy", step).isEqualTo(sides.expected());
  }

  /** Each document's fields that differ: {@code id.field: expected ≠ actual}; documents missing. */
  private static List<String> differences(
      Map<String, JsonNode> expected, Map<String, JsonNode> actual) {
    List<String> differences = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : expected.entrySet()) {
      JsonNode got = actual.get(e.getKey());
      if (got == null) {
        differences.add(e.getKey() + ": missing");
        continue;
      }
      e.getValue()
          .fields()
          .forEachRemaining(
              f -> {
                if (!f.getValue().equals(got.get(f.getKey()))) {
                  differences.add(
                      e.getKey()
                          + "."
                          + f.getKey()
                          + ": "
                          + f.getValue()
                          + " ≠ "
                          + got.get(f.getKey()));
                }
              });
    }
    actual.keySet().stream()
        .filter(id -> !expected.containsKey(id))
        .forEach(id -> differences.add(id + ": not expected"));
    return differences;
  }

  private Sides sides(DocumentPlan plan, String url) throws Exception {
    Map<String, JsonNode> expected;
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      expected = SqlDocuments.read(c, plan);
    }
    return new Sides(expected, indexed(plan), copied(plan));
  }

  private Map<String, JsonNode> indexed() throws Exception {
    return indexed(plan);
  }

  private Map<String, JsonNode> indexed(DocumentPlan plan) throws Exception {
    return DocumentSides.indexed(es, plan.index());
  }

  private Map<String, JsonNode> copied() throws Exception {
    return copied(plan);
  }

  private Map<String, JsonNode> copied(DocumentPlan plan) throws Exception {
    return DocumentSides.copied(config, plan);
  }

  private Map<String, Long> indexedVersions() throws Exception {
    Map<String, Long> versions = new TreeMap<>();
    for (JsonNode hit : SearchDocuments.hits(es, plan.index())) {
      versions.put(hit.path("_id").asText(), hit.path("_version").asLong());
    }
    return versions;
  }

  private Map<String, Long> copiedVersions() throws Exception {
    Map<String, Long> versions = new TreeMap<>();
    try (Connection c = PostgresConnectionProvider.open(config)) {
      new DocumentCopy(plan)
          .readRange(c, null, null)
          .forEach(d -> versions.put(d.id(), d.version()));
    }
    return versions;
  }

  private long copyToastTuples() throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return TableStats.read(c, plan.copyTable()).toastInserted();
    }
  }

  private static String resource(String name) throws Exception {
    try (InputStream in =
        DeclaredDocumentsITCase.class.getClassLoader().getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }

  @SuppressWarnings("unused")
  private static List<String> ids(Map<String, ?> docs) {
    return new ArrayList<>(docs.keySet());
  }
}
