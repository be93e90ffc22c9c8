package dev.weir.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BulkRequestTest {

  @Test
  void eachOperationIsItsActionLineThenItsDocumentWithVersionRoutingAndPipeline() {
    DocumentOperation index =
        DocumentOperation.index("books", "9\"1", 7, "{\"a\":1}".getBytes())
            .routedBy("r1")
            .requiringAlias();
    DocumentOperation delete = DocumentOperation.delete("books", "2", 8).routedBy("r2");
    DocumentOperation plain =
        DocumentOperation.index("books-v2", "3", DocumentOperation.NO_VERSION, "{}".getBytes());
    assertThat(body(List.of(index, delete, plain), "lowercase"))
        .isEqualTo(
            """
            {"index":{"_index":"books","_id":"9\\"1","version":7,"version_type":"external",\
            "routing":"r1","pipeline":"lowercase","require_alias":true}}
            {"a":1}
            {"delete":{"_index":"books","_id":"2","version":8,"version_type":"external",\
            "routing":"r2"}}
            {"index":{"_index":"books-v2","_id":"3","pipeline":"lowercase"}}
            {}
            """);
  }

  @Test
  void aMoveIsWrittenAtItsRoutingThenDeletedAtTheOldOneWithTheSameVersion() {
    DocumentOperation move =
        DocumentOperation.index("books", "1", 9, "{}".getBytes()).routedBy("new").movedFrom(null);
    assertThat(body(List.of(move), null))
        .isEqualTo(
            """
            {"index":{"_index":"books","_id":"1","version":9,"version_type":"external",\
            "routing":"new"}}
            {}
            {"delete":{"_index":"books","_id":"1","version":9,"version_type":"external"}}
            """);
  }

  @Test
  void deletesThroughAnAliasNotAlsoIndexedIntoGetOneGuardEach() {
    DocumentOperation delete = DocumentOperation.delete("books", "2", 8).requiringAlias();
    assertThat(body(List.of(delete, delete), null))
        .endsWith(
            """
            {"update":{"_index":"books","_id":"_weir_require_alias_guard","require_alias":true}}
            {"doc":{}}
            """);
    DocumentOperation index =
        DocumentOperation.index("books", "1", 9, "{}".getBytes()).requiringAlias();
    assertThat(body(List.of(delete, index), null)).doesNotContain("_weir_require_alias_guard");
  }

  @Test
  void theAnswersItemsAreReadInOrderWithTheEnginesErrorTypeAndReason() throws Exception {
    String answer =
        """
        {"errors":true,"items":[{"index":{"status":201}},
        {"delete":{"status":409,"error":{"type":"version_conflict_engine_exception",
        "reason":"[1]: version conflict","caused_by":{"type":"x","reason":"y"}}}},
        {"update":{"status":404,"error":{"type":"document_missing_exception","reason":"r"}}}]}
        """;
    assertThat(BulkRequest.items(new ByteArrayInputStream(answer.getBytes())))
        .containsExactly(
            new BulkOutcome.Item(201, null, null),
            new BulkOutcome.Item(409, "version_conflict_engine_exception", "[1]: version conflict"),
            new BulkOutcome.Item(404, "document_missing_exception", "r"));
  }

  private static String body(List<DocumentOperation> ops, String pipeline) {
    return new String(BulkRequest.body(ops, pipeline), StandardCharsets.UTF_8);
  }
}
