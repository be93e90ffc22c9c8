package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.dlq.DeadLetters;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

class IndexableDocumentsTest {

  private static final String DEFINITION =
      """
      [{"database": "library", "index": "books",
        "nodes": {"table": "book", "columns": ["id", "title"]}}]
      """;

  private final DocumentPlan plan =
      DocumentPlanner.plan(DefinitionFile.parse(DEFINITION).get(0), IndexableDocumentsTest::table);

  @Test
  void aDocumentOverWhatOneWriteTakesGoesToTheDlqTheOthersToTheIndex() throws Exception {
    var harness =
        ProcessFunctionTestHarnesses.forProcessFunction(
            new IndexableDocuments("search-index", plan, 10_000));
    harness.processElement(document("1", "\"Dune\""), 0);
    harness.processElement(document("2", "\"" + "é".repeat(6_000) + "\""), 0); // 12 kB
    harness.processElement(DocumentChange.deletion("2", 9), 0);

    assertThat(harness.extractOutputValues())
        .extracting(d -> d.id + (d.deleted ? " deleted" : ""))
        .containsExactly("1", "2 deleted");
    assertThat(harness.getSideOutput(DeadLetters.TAG))
        .singleElement()
        .satisfies(
            letter ->
                assertThat(letter.getValue().reason())
                    .contains("document '2' of books is 12,")
                    .contains("kept in the copy table"));
  }

  private DocumentChange document(String id, String title) {
    DocumentChange change = new DocumentChange();
    change.id = id;
    change.version = 7;
    change.values = new String[plan.documentFields().size()];
    Arrays.fill(change.values, "null");
    change.values[1] = title;
    change.contentHash = new byte[32];
    return change;
  }

  private static Optional<TableInfo> table(String schema, String table) {
    Map<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "bigint");
    columns.put("title", "text");
    return Optional.ofNullable(
        "book".equals(table)
            ? TableInfo.of(schema, table, columns, List.of("id"), List.of())
            : null);
  }
}
