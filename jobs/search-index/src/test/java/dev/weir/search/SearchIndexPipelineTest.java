package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.store.BatchStore;
import dev.weir.common.testing.CollectingSink;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.CopyWrite;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.Json;
import dev.weir.search.join.DocumentJoin;
import dev.weir.search.join.SourceRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * search-index's pipeline on a MiniCluster, with no service: rows of three tables in, through the
 * seam {@link SearchIndexJob#build} uses ({@link SearchIndexJob#index}), to an in-memory copy and a
 * collecting index sink.
 */
class SearchIndexPipelineTest {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final String DEFINITION =
      """
      [{"database": "library", "index": "books", "nodes": {
        "table": "book", "columns": ["id", "title", "publisher_id"],
        "children": [
          {"table": "publisher", "columns": ["name"],
           "relationship": {"type": "one_to_one", "variant": "object"}},
          {"table": "review", "label": "reviews", "columns": ["stars"],
           "relationship": {"type": "one_to_many", "variant": "scalar"}}]}}]
      """;

  private final DocumentPlan plan =
      DocumentPlanner.plan(DefinitionFile.parse(DEFINITION).get(0), SearchIndexPipelineTest::table);

  private final List<SourceRow> rows = new ArrayList<>();
  private long lsn;

  @BeforeEach
  void emptyCopy() {
    InMemoryCopy.ROWS.clear();
  }

  @Test
  void rowsOfEveryTableBecomeOneDocumentPerRootRowInTheCopyAndTheIndex() throws Exception {
    change("publisher", "{\"id\": 7, \"name\": \"Chilton\"}");
    change("book", "{\"id\": 1, \"title\": \"Dune\", \"publisher_id\": 7}");
    change("review", "{\"id\": 10, \"book_id\": 1, \"stars\": 5}");
    change("review", "{\"id\": 11, \"book_id\": 1, \"stars\": 4}");
    change("book", "{\"id\": 2, \"title\": \"Emma\", \"publisher_id\": null}");

    Map<String, JsonNode> index = run();

    assertThat(index)
        .containsOnlyKeys("1", "2")
        .hasEntrySatisfying(
            "1",
            doc ->
                assertThat(doc)
                    .isEqualTo(
                        json(
                            "{\"id\": 1, \"title\": \"Dune\", \"publisher_id\": 7,"
                                + " \"publisher\": {\"name\": \"Chilton\"}, \"reviews\": [5, 4]}")))
        .hasEntrySatisfying(
            "2",
            doc ->
                assertThat(doc)
                    .isEqualTo(
                        json(
                            "{\"id\": 2, \"title\": \"Emma\", \"publisher_id\": null,"
                                + " \"publisher\": null, \"reviews\": []}")));
    assertThat(InMemoryCopy.ROWS).containsOnlyKeys("1", "2");
  }

  @Test
  void laterChangesAtEveryLevelReachTheDocumentAndADeletedRootLeavesBoth() throws Exception {
    change("publisher", "{\"id\": 7, \"name\": \"Chilton\"}");
    change("book", "{\"id\": 1, \"title\": \"Dune\", \"publisher_id\": 7}");
    change("book", "{\"id\": 2, \"title\": \"Emma\", \"publisher_id\": 7}");
    change("review", "{\"id\": 10, \"book_id\": 1, \"stars\": 5}");
    change("review", "{\"id\": 11, \"book_id\": 1, \"stars\": 4}");
    change("publisher", "{\"id\": 7, \"name\": \"Ace\"}");
    delete("review", "{\"id\": 10}");
    delete("book", "{\"id\": 2}");

    Map<String, JsonNode> index = run();

    assertThat(index).containsOnlyKeys("1");
    assertThat(index.get("1").get("publisher")).isEqualTo(json("{\"name\": \"Ace\"}"));
    assertThat(index.get("1").get("reviews")).isEqualTo(json("[4]"));
    assertThat(InMemoryCopy.ROWS).containsOnlyKeys("1");
  }

  /** Runs the pipeline over the rows; returns the index as the sink's writes leave it. */
  // fromCollection, not fromData: fromData fails on an empty collection in Flink 1.20.
  @SuppressWarnings("deprecation")
  private Map<String, JsonNode> run() throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    Map<String, DataStream<SourceRow>> tables = new LinkedHashMap<>();
    for (DocumentPlan.Source source : plan.sources().values()) {
      List<SourceRow> ofTable = rows.stream().filter(r -> r.source.equals(source.name())).toList();
      tables.put(
          source.name(),
          env.fromCollection(ofTable, TypeInformation.of(SourceRow.class))
              .assignTimestampsAndWatermarks(
                  WatermarkStrategy.<SourceRow>forMonotonousTimestamps()
                      .withTimestampAssigner((row, ts) -> row.time)));
    }
    DeadLetters dlq = new DeadLetters(SearchIndexJob.NAME);
    SearchIndexJob.index(
        tables,
        plan,
        new DocumentJoin.Settings(Duration.ofMillis(1), 0, Duration.ofDays(1)),
        new CopyWriteOperator(
            SearchIndexJob.NAME,
            "in_memory_copy",
            InMemoryCopy::new,
            10,
            100,
            "the in-memory copy",
            PostgresTimeouts.of(WeirConfig.from(Map.of(), Map.of()))),
        CollectingSink.named("index"),
        dlq);
    dlq.sinkTo(CollectingSink.<DeadLetter>named("dlq"));
    env.execute("search-index pipeline");

    assertThat(CollectingSink.<DeadLetter>values("dlq")).isEmpty();
    // The index as external versions leave it: per document, the write of the highest version.
    Map<String, DocumentChange> latest = new TreeMap<>();
    for (DocumentChange d : CollectingSink.<DocumentChange>values("index")) {
      latest.merge(d.id, d, (a, b) -> b.version >= a.version ? b : a);
    }
    Map<String, JsonNode> index = new TreeMap<>();
    latest.forEach(
        (id, d) -> {
          if (!d.deleted) {
            index.put(id, document(d));
          }
        });
    return index;
  }

  private JsonNode document(DocumentChange d) {
    StringBuilder json = new StringBuilder("{");
    List<DocumentPlan.DocumentField> fields = plan.documentFields();
    for (int i = 0; i < fields.size(); i++) {
      json.append(i == 0 ? "" : ",").append('"').append(fields.get(i).name()).append("\":");
      json.append(d.values[i]);
    }
    return json(json.append('}').toString());
  }

  private void change(String table, String values) {
    rows.add(row(table, values, false));
  }

  private void delete(String table, String key) {
    rows.add(row(table, key, true));
  }

  private SourceRow row(String table, String values, boolean deleted) {
    SourceRow row = new SourceRow();
    row.source = "public." + table;
    row.values = values;
    row.deleted = deleted;
    row.lsn = ++lsn;
    row.time = 1_000_000L + lsn * 1000;
    return row;
  }

  private static JsonNode json(String text) {
    try {
      return Json.mapper().readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  /** The copy, in the test's JVM: a document is written unless the copy holds a newer one. */
  static final class InMemoryCopy implements BatchStore<DocumentChange, CopyWrite> {
    static final Map<String, Long> ROWS = new ConcurrentHashMap<>();
    private long written;

    @Override
    public CopyWrite write(Collection<DocumentChange> batch) {
      Map<String, Long> held = new HashMap<>();
      for (DocumentChange d : batch) {
        Long current = ROWS.get(d.id);
        if (current != null && current > d.version) {
          held.put(d.id, null);
          continue;
        }
        if (d.deleted) {
          ROWS.remove(d.id);
        } else {
          ROWS.put(d.id, d.version);
        }
        held.put(d.id, d.version);
        written++;
      }
      return new CopyWrite(held, List.of());
    }

    @Override
    public long rowsWritten() {
      return written;
    }

    @Override
    public void close() {}
  }

  private static Optional<TableInfo> table(String schema, String table) {
    Map<String, String> columns = new LinkedHashMap<>();
    List<TableInfo.ForeignKey> keys = new ArrayList<>();
    switch (table) {
      case "book" -> {
        columns.put("id", "bigint");
        columns.put("title", "text");
        columns.put("publisher_id", "bigint");
        keys.add(
            new TableInfo.ForeignKey(
                List.of("publisher_id"), "public", "publisher", List.of("id")));
      }
      case "publisher" -> {
        columns.put("id", "bigint");
        columns.put("name", "text");
      }
      case "review" -> {
        columns.put("id", "bigint");
        columns.put("book_id", "bigint");
        columns.put("stars", "integer");
        keys.add(new TableInfo.ForeignKey(List.of("book_id"), "public", "book", List.of("id")));
      }
      default -> {
        return Optional.empty();
      }
    }
    return Optional.of(TableInfo.of(schema, table, columns, List.of("id"), keys));
  }
}
