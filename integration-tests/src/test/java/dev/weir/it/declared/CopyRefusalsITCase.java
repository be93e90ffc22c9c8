package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import dev.weir.it.TestDatabases.Source;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copy while the source's schema changes under the running jobs: a source column widened is
 * widened in the copy too, and its new values reach the copy and the index; a row the copy refuses
 * for another reason goes to the DLQ with the reason, the other rows of its transaction are
 * written, and the job goes on.
 */
@ExtendWith(LocalStackExtension.class)
class CopyRefusalsITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(8).build());

  private static final Duration WAIT = Duration.ofSeconds(120);

  private static final String SCHEMA =
      "CREATE TABLE item (id text PRIMARY KEY, qty integer, code varchar(5), tag uuid,"
          + " price numeric(6,2))";

  private static final String DEFINITION =
      """
      [{"database": "items", "index": "items", "weir": {"copy_table": "item_document"},
        "nodes": {"table": "item", "columns": ["id", "qty", "code", "tag", "price"]}}]
      """;

  private static final String TAG_1 = "00000000-0000-0000-0000-000000000001";
  private static final String TAG_2 = "00000000-0000-0000-0000-000000000002";

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private WeirConfig config;
  private String sourceUrl;
  private DocumentPlan plan;
  private SearchCluster es;
  private JobClient capture;
  private JobClient indexer;

  @AfterEach
  void stop() throws Exception {
    DocumentSides.stop(config, capture, indexer);
  }

  @Test
  void aSourceColumnWidenedWhileTheJobsRunIsWidenedInTheCopyAndItsValuesIndexed(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    start("INSERT INTO item VALUES ('i-1', 1, 'ab', '" + TAG_1 + "', 1.50)");
    awaitSame("the snapshot");

    change(
        "ALTER TABLE item ALTER COLUMN qty TYPE bigint",
        "ALTER TABLE item ALTER COLUMN code TYPE text",
        "ALTER TABLE item ALTER COLUMN price TYPE numeric(12,2)");
    change(
        "INSERT INTO item VALUES ('i-2', 3000000000, 'a code longer than five', '"
            + TAG_2
            + "',"
            + " 1234567.25)",
        "UPDATE item SET qty = 5000000000, code = 'longer than five' WHERE id = 'i-1'");
    awaitSame("values that fit only the widened types");
    assertThat(copyColumnTypes())
        .containsEntry("qty", "bigint")
        .containsEntry("code", "text")
        .containsEntry("price", "numeric(12,2)")
        .containsEntry("tag", "uuid");

    change("UPDATE item SET qty = -9000000000 WHERE id = 'i-2'");
    awaitSame("a change after the widening");
    assertThat(deadLetters(Duration.ofSeconds(3), 1)).as("the dead letters").isEmpty();
    assertRunningWithoutRestarts(flink);
  }

  @Test
  void aRowTheCopyRefusesGoesToTheDlqWithItsReasonAndTheOthersAreWritten(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    start(
        "INSERT INTO item VALUES ('i-1', 1, 'ab', '" + TAG_1 + "', 1.50)",
        "INSERT INTO item VALUES ('i-2', 2, 'cd', '" + TAG_2 + "', 2.50)");
    awaitSame("the snapshot");

    // uuid → text is no widening: the copy keeps uuid, and a text that is no uuid cannot go in.
    change("ALTER TABLE item ALTER COLUMN tag TYPE text");
    change(
        "INSERT INTO item VALUES ('i-3', 3, 'ef', 'not a uuid', 3.50)",
        "INSERT INTO item VALUES ('i-4', 4, 'gh', '" + TAG_1 + "', 4.50)",
        "UPDATE item SET qty = 20 WHERE id = 'i-1'",
        "UPDATE item SET qty = 22, tag = 'no uuid either' WHERE id = 'i-2'");
    List<String> reasons = reasons(deadLetters(WAIT, 2));
    reasons.forEach(r -> System.out.println("CopyRefusalsITCase dead letter: " + r));
    assertThat(reasons).hasSize(2);
    String copyTable = plan.copyTable();
    for (String id : List.of("i-3", "i-2")) {
      assertThat(reasons)
          .as("the reason for %s", id)
          .anySatisfy(
              r ->
                  assertThat(r)
                      .contains("'" + id + "'", copyTable, "tag", "uuid", "text")
                      .contains("invalid input syntax for type uuid"));
    }
    Map<String, JsonNode> copied =
        Await.until(
            WAIT, this::copied, c -> c.containsKey("i-4") && c.get("i-1").get("qty").asInt() == 20);
    assertThat(copied).containsOnlyKeys("i-1", "i-2", "i-4");
    assertThat(copied.get("i-2").get("qty").asInt())
        .as("i-2 as before its refused change")
        .isEqualTo(2);
    Map<String, JsonNode> indexed = Await.until(WAIT, this::indexed, copied::equals);
    assertThat(indexed).isEqualTo(copied);
    assertRunningWithoutRestarts(flink);

    // The refused rows set right at the source: each whole in the copy and the index, the qty of
    // i-2's refused change with it.
    change(
        "UPDATE item SET tag = '" + TAG_2 + "' WHERE id = 'i-2'",
        "UPDATE item SET tag = '" + TAG_2 + "' WHERE id = 'i-3'");
    awaitSame("the refused rows set right");
    assertThat(copied().get("i-2").get("qty").asInt()).isEqualTo(22);
    assertRunningWithoutRestarts(flink);
  }

  // --- the stack

  private void start(String... rows) throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_refusals");
    Source source = TestDatabases.freshSource(base, "it_items_" + run, SCHEMA);
    sourceUrl = source.url();
    TestDatabases.execute(base, sourceUrl, rows);
    Path file =
        Files.writeString(
            dir.resolve("items.json"),
            DEFINITION
                .replace("\"database\": \"items\"", "\"database\": \"" + source.database() + "\"")
                .replace("\"index\": \"items\"", "\"index\": \"it-items-" + run + "\""));
    config = TestDatabases.declaring(base, source, file, "it.refusals", run);
    plan = Definitions.plans(config).get(0);
    es = ElasticsearchConnection.cluster(config);
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
  }

  /** Runs the statements in one transaction of the source database. */
  private void change(String... statements) throws Exception {
    TestDatabases.transaction(config, sourceUrl, statements);
  }

  private void assertRunningWithoutRestarts(RestClusterClient<?> flink) throws Exception {
    DocumentSides.assertRunningWithoutRestarts(flink, capture, indexer);
  }

  // --- what each side holds

  /** The source's rows as documents, the copy's and the index's all equal to them. */
  private void awaitSame(String step) throws Exception {
    Map<String, JsonNode> expected = sourceRows();
    Map<String, JsonNode> indexed = Await.until(WAIT, this::indexed, expected::equals);
    assertThat(indexed).as("%s: Elasticsearch", step).isEqualTo(expected);
    assertThat(copied()).as("%s: the copy", step).isEqualTo(expected);
  }

  private Map<String, JsonNode> sourceRows() throws Exception {
    Map<String, JsonNode> rows = new TreeMap<>();
    for (String row :
        TestDatabases.strings(
            config,
            sourceUrl,
            "SELECT json_build_object('id', id, 'qty', qty, 'code', code, 'tag', tag,"
                + " 'price', price)::text FROM item")) {
      JsonNode json = Json.mapper().readTree(row);
      rows.put(json.get("id").asText(), SqlDocuments.normalized(json));
    }
    return rows;
  }

  private Map<String, JsonNode> indexed() throws Exception {
    return DocumentSides.indexed(es, plan.index());
  }

  private Map<String, JsonNode> copied() throws Exception {
    return DocumentSides.copied(config, plan);
  }

  private Map<String, String> copyColumnTypes() throws Exception {
    Map<String, String> types = new TreeMap<>();
    for (String row :
        TestDatabases.strings(
            config,
            config.get(WeirOptions.POSTGRES_URL),
            "SELECT attname || ' ' || format_type(atttypid, atttypmod) FROM pg_attribute"
                + " WHERE attrelid = to_regclass('"
                + plan.copyTable()
                + "') AND attnum > 0 AND NOT attisdropped")) {
      types.put(row.substring(0, row.indexOf(' ')), row.substring(row.indexOf(' ') + 1));
    }
    return types;
  }

  private List<ConsumerRecord<byte[], byte[]>> deadLetters(Duration wait, int atLeast) {
    return Kafka.readCommitted(config.get(WeirOptions.DLQ_TOPIC), wait, r -> r.size() >= atLeast);
  }

  private static List<String> reasons(List<ConsumerRecord<byte[], byte[]>> letters)
      throws Exception {
    List<String> reasons = new ArrayList<>();
    for (var letter : letters) {
      reasons.add(Json.mapper().readTree(letter.value()).path("reason").asText());
    }
    return reasons;
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
