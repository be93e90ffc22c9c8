package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.WeirCli;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.FlinkRest;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.it.TestDatabases.Source;
import dev.weir.it.engines.EverySearchEngine;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A definition's index keys on the running engine: PGSync's {@code setting} and {@code mapping}
 * make the index (three shards, a field's mapping), {@code routing} routes every write by a field
 * and {@code pipeline} names the ingest pipeline documents go through. After changes of the routing
 * field (several in one transaction among them) and deletes, the index holds each row's document
 * once, found by {@code GET /_doc/{id}?routing=}; a backfill of the copy makes an index that does
 * too. A setting the engine refuses, or a pipeline it does not have, stops the start naming it.
 */
@EverySearchEngine
@ExtendWith(LocalStackExtension.class)
class RoutedIndexITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(8).build());

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final int ITEMS = 40;
  private static final List<String> OWNERS = List.of("ada", "bob", "cy", "dee", "eve");

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String pipeline = "it-routed-" + run;
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
    if (config != null && capture != null) {
      CatalogCaptureJob.dropSlot(config);
    }
    if (es != null) {
      es.close();
    }
  }

  @Test
  void everyDocumentIsAtItsRoutingOnceAfterTheRoutingFieldChangesAndAfterABackfill(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    String alias = "it-routed-" + run;
    setUp(
        """
        [{"database": "routed", "index": "%s", "routing": "owner", "pipeline": "%s",
          "setting": {"number_of_shards": 3, "index": {"refresh_interval": "1s"}},
          "mapping": {"name": {"type": "keyword"}},
          "nodes": {"table": "item", "columns": ["id", "owner", "name"]}}]
        """
            .formatted(alias, pipeline));
    es.put("/_ingest/pipeline/" + pipeline, "{\"processors\": []}");
    List<String> rows = new ArrayList<>();
    for (int id = 1; id <= ITEMS; id++) {
      rows.add(
          "INSERT INTO item VALUES (%d, '%s', 'item %d')"
              .formatted(id, OWNERS.get(id % OWNERS.size()), id));
    }
    change(rows.toArray(String[]::new));
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
    awaitEveryRowAtItsRouting(alias, "the snapshot");

    String index = only(es.indicesBehind(alias));
    JsonNode settings = es.get("/" + index + "/_settings").path(index).path("settings");
    assertThat(settings.path("index").path("number_of_shards").asText()).isEqualTo("3");
    assertThat(es.mappings(index).path("properties").path("name").path("type").asText())
        .isEqualTo("keyword");

    Random random = new Random(7);
    for (int round = 0; round < 4; round++) {
      List<String> moves = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        int id = 1 + random.nextInt(ITEMS);
        moves.add(
            "UPDATE item SET owner = '%s' WHERE id = %d"
                .formatted(OWNERS.get(random.nextInt(OWNERS.size())), id));
      }
      change(moves.toArray(String[]::new)); // a row moved twice in one transaction among them
    }
    // Moved, then deleted: the delete must find it where it moved to.
    change("UPDATE item SET owner = 'zed' WHERE id = 3", "DELETE FROM item WHERE id = 3");
    change("UPDATE item SET owner = 'zed' WHERE id = 4");
    change("DELETE FROM item WHERE id = 4");
    // Routed by its id when the field is null.
    change("UPDATE item SET owner = NULL WHERE id = 5");
    awaitEveryRowAtItsRouting(alias, "routing changes and deletes");

    // Documents go through the pipeline: with it gone, the engine refuses the next one naming it.
    // (An empty pipeline changes nothing else to look at.) With it back, the job goes on.
    es.delete("/_ingest/pipeline/" + pipeline);
    change("UPDATE item SET name = 'renamed' WHERE id = 1");
    String failures =
        Await.until(
            WAIT,
            () -> FlinkRest.exceptions(flink, indexer.getJobID()),
            f -> f.contains("pipeline with id [" + pipeline + "] does not exist"));
    assertThat(failures).contains("pipeline with id [" + pipeline + "] does not exist");
    es.put("/_ingest/pipeline/" + pipeline, "{\"processors\": []}");
    Await.until(
        WAIT,
        () -> SearchDocuments.source(es, alias, "1", rows().get("1")),
        d -> d != null && d.path("name").asText().equals("renamed"));

    // The backfill writes the copy's documents at their routing, into a new three-shard index.
    indexer.cancel().get();
    indexer = null;
    Backfill.Summary rebuilt =
        Backfill.run(
            config.with(BackfillOptions.TARGET, alias + "-v2"),
            true,
            StreamExecutionEnvironment::getExecutionEnvironment,
            (pass, done, total, rate) -> {});
    assertThat(rebuilt.swapped()).isTrue();
    assertThat(es.indicesBehind(alias)).containsExactly(alias + "-v2");
    assertEveryRowAtItsRouting(alias + "-v2");
  }

  @Test
  void aDocumentTheEngineRefusesGoesToTheDlqWithItsReasonAndTheJobGoesOn() throws Exception {
    String alias = "it-refusal-" + run;
    // A mapping that takes only some of the column's values: the engine refuses the others.
    setUp(
        """
        [{"database": "routed", "index": "%s", "mapping": {"name": {"type": "integer"}},
          "nodes": {"table": "item", "columns": ["id", "owner", "name"]}}]
        """
            .formatted(alias));
    change(
        "INSERT INTO item VALUES (1, 'ada', '11')",
        "INSERT INTO item VALUES (2, 'bob', 'twelve')",
        "INSERT INTO item VALUES (3, 'cy', '13')");
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
    String dlq = config.get(WeirOptions.DLQ_TOPIC);
    List<JsonNode> letters = deadLetters(dlq, 1);
    assertThat(letters).hasSize(1);
    JsonNode letter = letters.get(0);
    assertThat(letter.path("job").asText()).isEqualTo(SearchIndexJob.NAME);
    assertThat(letter.path("reason").asText())
        .contains(alias)
        .contains("/2@")
        .contains("status 400")
        .containsPattern("(mapper|document)_parsing_exception")
        .contains("[name]")
        .contains("kept in the copy table");
    Await.until(WAIT, () -> SearchDocuments.count(es, alias, "{\"match_all\": {}}"), n -> n == 2);
    assertThat(SearchDocuments.exists(es, alias, "1")).isTrue();
    assertThat(SearchDocuments.exists(es, alias, "3")).isTrue();
    assertThat(SearchDocuments.exists(es, alias, "2")).isFalse();

    // The job goes on: the row fixed, its document is indexed; a later refusal is set aside too.
    change("UPDATE item SET name = '12' WHERE id = 2", "UPDATE item SET name = 'x' WHERE id = 3");
    ObjectNode fixed =
        Await.until(WAIT, () -> SearchDocuments.source(es, alias, "2"), d -> d != null);
    assertThat(fixed.path("name").asText()).isEqualTo("12");
    assertThat(deadLetters(dlq, 2)).hasSize(2);
    assertThat(SearchDocuments.source(es, alias, "3").path("name").asText())
        .as("the index keeps the refused document's previous version")
        .isEqualTo("13");
    assertThat(indexer.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  private static List<JsonNode> deadLetters(String topic, int atLeast) throws Exception {
    List<JsonNode> letters = new ArrayList<>();
    for (var r : Kafka.readCommitted(topic, WAIT, read -> read.size() >= atLeast)) {
      letters.add(Json.mapper().readTree(r.value()));
    }
    return letters;
  }

  @Test
  void aSettingTheEngineRefusesOrAMissingPipelineStopsTheStartNamingIt() throws Exception {
    String alias = "it-refused-" + run;
    String refused =
        """
        [{"database": "routed", "index": "%s",
          "setting": {"number_of_shards": "three"},
          "nodes": {"table": "item", "columns": ["id", "owner", "name"]}}]
        """
            .formatted(alias);
    Path file = setUp(refused);
    assertThatThrownBy(() -> new SearchIndexJob().prepare(config))
        .hasMessageContaining("document '" + alias + "'")
        .hasMessageContaining("number_of_shards");
    assertThat(es.indexExists(alias)).as("nothing created").isFalse();

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = WeirCli.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute("documents", "check", file.toString(), "--catalog-url", catalogUrl);
    assertThat(exit).isEqualTo(1);
    assertThat(err.toString()).contains("number_of_shards");

    Files.writeString(
        file,
        inOwnDatabase(refused)
            .replace(
                "\"setting\": {\"number_of_shards\": \"three\"}",
                "\"pipeline\": \"" + pipeline + "\""));
    config = config.with(DocumentOptions.DOCUMENTS, file.toString());
    assertThatThrownBy(() -> new SearchIndexJob().prepare(config))
        .hasMessageContaining("pipeline '" + pipeline + "'");
    assertThat(es.indexExists(alias)).as("nothing created").isFalse();

    // The shards and replicas options make the index, over the definition's default.
    config = config.with(DocumentOptions.INDEX_SHARDS, "2");
    es.put("/_ingest/pipeline/" + pipeline, "{\"processors\": []}");
    new SearchIndexJob().prepare(config);
    String index = only(es.indicesBehind(alias));
    JsonNode settings = es.get("/" + index + "/_settings").path(index).path("settings");
    assertThat(settings.path("index").path("number_of_shards").asText()).isEqualTo("2");
    assertThat(settings.path("index").path("number_of_replicas").asText()).isEqualTo("0");
  }

  /** A source database with the item table, the definition in a file, the configuration. */
  private Path setUp(String definition) throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_routed");
    Source source =
        TestDatabases.freshSource(
            base,
            "it_routed_" + run,
            "CREATE TABLE IF NOT EXISTS item (id bigint PRIMARY KEY, owner text, name text)");
    catalogUrl = source.url();
    Path file = dir.resolve("routed.json");
    Files.writeString(file, inOwnDatabase(definition));
    config = TestDatabases.declaring(base, source, file, "it.routed", run);
    es = ElasticsearchConnection.cluster(config);
    return file;
  }

  /** The definition naming this run's database, where its file says "routed". */
  private String inOwnDatabase(String definition) {
    return definition.replace(
        "\"database\": \"routed\"", "\"database\": \"it_routed_" + run + "\"");
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

  /** id → owner (null: none) of every row. */
  private Map<String, String> rows() throws Exception {
    Map<String, String> rows = new TreeMap<>();
    try (Connection c = PostgresConnectionProvider.open(config, catalogUrl);
        ResultSet rs = c.createStatement().executeQuery("SELECT id, owner FROM item")) {
      while (rs.next()) {
        rows.put(rs.getString(1), rs.getString(2));
      }
    }
    return rows;
  }

  /**
   * What is wrong with the index against the rows: a row whose document is not at its routing, or
   * has another owner, and how many documents the index holds beyond the rows (a copy left at an
   * old routing). Empty when nothing is.
   */
  private List<String> differences(String index) throws Exception {
    Map<String, String> rows = rows();
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, String> row : rows.entrySet()) {
      ObjectNode source = SearchDocuments.source(es, index, row.getKey(), row.getValue());
      String owner = source == null ? "(none)" : source.path("owner").asText(null);
      if (source == null || !Objects.equals(owner, row.getValue())) {
        wrong.add(row.getKey() + " at routing " + row.getValue() + ": " + owner);
      }
    }
    List<JsonNode> hits = SearchDocuments.hits(es, index);
    if (hits.size() != rows.size()) {
      List<String> held = new ArrayList<>();
      hits.forEach(h -> held.add(h.path("_id").asText() + "@" + h.path("_routing").asText("(id)")));
      wrong.add(rows.size() + " rows, " + hits.size() + " documents: " + held);
    }
    return wrong;
  }

  private void awaitEveryRowAtItsRouting(String index, String step) throws Exception {
    List<String> wrong = Await.until(WAIT, () -> differences(index), List::isEmpty);
    assertThat(wrong).as(step).isEmpty();
  }

  private void assertEveryRowAtItsRouting(String index) throws Exception {
    assertThat(differences(index)).isEmpty();
  }

  private static String only(Set<String> indices) {
    assertThat(indices).hasSize(1);
    return indices.iterator().next();
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
