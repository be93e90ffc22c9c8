package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.it.TestDatabases.Source;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.JobStatus;
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
 * The source's schema changed under the running capture and search-index: a column added that the
 * definition does not declare is ignored; a declared column renamed (or dropped) does not empty the
 * documents it feeds: the table's changes go to the DLQ naming the column and the definition, the
 * documents keep the row as it was, and the other tables' changes still reach them.
 */
@ExtendWith(LocalStackExtension.class)
class SourceSchemaChangesITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(8).build());

  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private WeirConfig config;
  private String catalogUrl;
  private SearchCluster es;
  private JobClient capture;
  private JobClient indexer;

  @AfterEach
  void stop() throws Exception {
    for (JobClient job : new JobClient[] {capture, indexer}) {
      if (job != null) {
        job.cancel().get();
      }
    }
    if (capture != null) {
      CatalogCaptureJob.dropSlot(config);
    }
    if (es != null) {
      es.close();
    }
  }

  @Test
  void anUndeclaredColumnIsIgnoredAndARenamedDeclaredOneIsDeadLetteredNotEmptied()
      throws Exception {
    String alias = startItemsAndTags("it-schema-" + run, "it_schema_" + run);
    awaitDocument(alias, "2", "desk", "wood");

    // A column the definition does not declare: added, written, ignored.
    change("ALTER TABLE item ADD COLUMN colour text");
    change("UPDATE item SET colour = 'red', name = 'red lamp' WHERE id = 1");
    ObjectNode lamp = awaitDocument(alias, "1", "red lamp", "light");
    assertThat(lamp.has("colour")).isFalse();

    // A declared column renamed: the tag's change is not applied (its label not emptied), and
    // set aside naming the column and the definition.
    change("ALTER TABLE tag RENAME COLUMN label TO title");
    change("UPDATE tag SET title = 'oak' WHERE id = 20");
    String dlq = config.get(WeirOptions.DLQ_TOPIC);
    List<JsonNode> letters = new ArrayList<>();
    for (var r : Kafka.readCommitted(dlq, WAIT, read -> !read.isEmpty())) {
      letters.add(Json.mapper().readTree(r.value()));
    }
    assertThat(letters).hasSize(1);
    assertThat(letters.get(0).path("reason").asText())
        .startsWith(
            "column 'label' of public.tag, which the definition of document '"
                + alias
                + "' declares, is not in this change")
        .contains("title")
        .contains("dropped or renamed at the source?");

    // The other table's changes still reach the documents, which keep the tag as it was.
    change("UPDATE item SET name = 'oak desk' WHERE id = 2");
    awaitDocument(alias, "2", "oak desk", "wood");
    assertThat(indexer.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(capture.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  @Test
  void aNewTableIsIgnoredAndADroppedDeclaredTableKeepsItsRowsUntilTheNextStartRefusesIt()
      throws Exception {
    String alias = startItemsAndTags("it-schema-tables-" + run, "it_schema_tables_" + run);

    // A table the definition does not name: created and written, nothing reads it.
    change(
        "CREATE TABLE shelf (id bigint PRIMARY KEY, label text)",
        "INSERT INTO shelf VALUES (1, 'top')");
    change("UPDATE item SET name = 'desk lamp' WHERE id = 1");
    awaitDocument(alias, "1", "desk lamp", "light");

    // A declared table dropped: no change comes for it any more, the documents keep its rows,
    // and the other table's changes still reach them.
    change("DROP TABLE tag");
    change("UPDATE item SET name = 'oak desk' WHERE id = 2");
    awaitDocument(alias, "2", "oak desk", "wood");
    assertThat(KafkaTopics.endOffsets(config, config.get(WeirOptions.DLQ_TOPIC)))
        .as("dead letters")
        .isZero();
    assertThat(indexer.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(capture.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    // The next start refuses the definition, naming the table.
    assertThatThrownBy(() -> Definitions.plans(config))
        .isInstanceOf(DefinitionException.class)
        .hasMessageContaining("tag");
  }

  /**
   * Items with their tags (two of each) on a database of their own, captured and indexed behind
   * {@code alias}; returns the alias once item 1 is indexed.
   */
  private String startItemsAndTags(String alias, String database) throws Exception {
    setUp(
        database,
        """
        [{"database": "%s", "index": "%s",
          "nodes": {"table": "item", "columns": ["id", "name"],
            "children": [{"table": "tag", "label": "tags", "columns": ["label"],
              "relationship": {"type": "one_to_many", "variant": "scalar",
                "foreign_key": {"parent": ["id"], "child": ["item_id"]}}}]}}]
        """
            .formatted(database, alias));
    change(
        "INSERT INTO item VALUES (1, 'lamp'), (2, 'desk')",
        "INSERT INTO tag VALUES (10, 1, 'light'), (20, 2, 'wood')");
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
    awaitDocument(alias, "1", "lamp", "light");
    return alias;
  }

  /** Waits until the document has the name and its one tag; returns it. */
  private ObjectNode awaitDocument(String alias, String id, String name, String tag)
      throws Exception {
    ObjectNode doc =
        Await.until(
            WAIT,
            () -> SearchDocuments.source(es, alias, id),
            d ->
                d != null
                    && d.path("name").asText().equals(name)
                    && d.path("tags").toString().equals("[\"" + tag + "\"]"));
    assertThat(doc).as("document %s", id).isNotNull();
    assertThat(doc.path("name").asText()).isEqualTo(name);
    assertThat(doc.path("tags").toString()).isEqualTo("[\"" + tag + "\"]");
    return doc;
  }

  private void setUp(String database, String definition) throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_schema");
    Source source =
        TestDatabases.freshSource(
            base,
            database,
            "CREATE TABLE item (id bigint PRIMARY KEY, name text)",
            "CREATE TABLE tag (id bigint PRIMARY KEY, item_id bigint REFERENCES item (id), label text)");
    catalogUrl = source.url();
    Path file = dir.resolve("schema.json");
    Files.writeString(file, definition);
    config = TestDatabases.declaring(base, source, file, "it.schema", run);
    es = ElasticsearchConnection.cluster(config);
  }

  private void change(String... statements) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, catalogUrl)) {
      c.setAutoCommit(false);
      for (String sql : statements) {
        c.createStatement().execute(sql);
      }
      c.commit();
    }
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
