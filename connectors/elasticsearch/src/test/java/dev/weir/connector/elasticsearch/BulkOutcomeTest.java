package dev.weir.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BulkOutcomeTest {

  private final DocumentOperation a = DocumentOperation.index("products", "1", 3, "{}".getBytes());
  private final DocumentOperation b = DocumentOperation.index("products", "2", 3, "{}".getBytes());
  private final DocumentOperation c = DocumentOperation.delete("products", "3", 4);

  @Test
  void versionConflictsAreStaleNotErrors() {
    BulkOutcome outcome =
        BulkOutcome.of(List.of(a, b, c), List.of(item(201), item(409), item(404)));
    assertThat(outcome.succeeded).isEqualTo(2);
    assertThat(outcome.stale).isEqualTo(1);
    assertThat(outcome.retry).isEmpty();
    assertThat(outcome.failure()).isEmpty();
  }

  @Test
  void overloadAndServerErrorsAreRetriedItemByItem() {
    BulkOutcome outcome =
        BulkOutcome.of(List.of(a, b, c), List.of(item(429), item(200), item(503)));
    assertThat(outcome.retry).containsExactly(a, c);
    assertThat(outcome.failure()).isEmpty();
  }

  @Test
  void aDeleteOrAnIndexThroughAMissingAliasFailsSayingHowToRecoverNotAlreadyGone() {
    DocumentOperation delete = c.requiringAlias();
    BulkOutcome outcome =
        BulkOutcome.of(
            List.of(delete),
            List.of(new BulkOutcome.Item(404, "index_not_found_exception", "no such index")));
    assertThat(outcome.succeeded).isZero();
    assertThat(outcome.failure())
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .contains("alias products has no index behind it")
                    .contains("delete products/3@4")
                    .contains("weir backfill"));
    assertThat(
            BulkOutcome.of(
                    List.of(a.requiringAlias()),
                    List.of(
                        new BulkOutcome.Item(
                            404, "index_not_found_exception", "[require_alias] request flag")))
                .failure())
        .hasValueSatisfying(m -> assertThat(m).contains("has no index behind it"));
    // A delete of a document the (existing) alias does not hold is done, as before.
    assertThat(BulkOutcome.of(List.of(delete), List.of(item(404))).failure()).isEmpty();
  }

  @Test
  void aMappingErrorRefusesThatDocumentOnlyWithTheEnginesWords() {
    BulkOutcome outcome =
        BulkOutcome.of(
            List.of(a, b),
            List.of(
                item(200),
                new BulkOutcome.Item(
                    400,
                    "document_parsing_exception",
                    "failed to parse field [price] of type [double]")));
    assertThat(outcome.succeeded).isEqualTo(1);
    assertThat(outcome.failure()).isEmpty();
    assertThat(outcome.refused).hasSize(1);
    assertThat(outcome.refused.get(0).operation()).isSameAs(b);
    assertThat(outcome.refused.get(0).reason())
        .contains("The search cluster rejected index products/2@3")
        .contains("400")
        .contains("document_parsing_exception")
        .contains("price");
  }

  @Test
  void aRefusalAnOperatorCanFixFailsClearly() {
    BulkOutcome outcome =
        BulkOutcome.of(
            List.of(a),
            List.of(new BulkOutcome.Item(403, "cluster_block_exception", "index read-only")));
    assertThat(outcome.refused).isEmpty();
    assertThat(outcome.failure())
        .hasValueSatisfying(m -> assertThat(m).contains("403").contains("cluster_block_exception"));
  }

  @Test
  void aMissingPipelineFailsForTheOperatorToFixNotTheDocument() {
    BulkOutcome outcome =
        BulkOutcome.of(
            List.of(a),
            List.of(
                new BulkOutcome.Item(
                    400,
                    "illegal_argument_exception",
                    "pipeline with id [books-in] does not exist")));
    assertThat(outcome.refused).isEmpty();
    assertThat(outcome.failure())
        .hasValueSatisfying(m -> assertThat(m).contains("pipeline with id [books-in]"));
  }

  private static BulkOutcome.Item item(int status) {
    return new BulkOutcome.Item(status, status >= 300 ? "x" : null, status >= 300 ? "y" : null);
  }

  @Test
  void aMovesDeleteAtItsOldRoutingIsDoneWhenGoneOrStaleAndRetriedOnOverload() {
    DocumentOperation move =
        DocumentOperation.index("products", "1", 5, "{}".getBytes()).routedBy("b").movedFrom("a");
    // Another shard: the old copy deleted; the same shard: the delete is refused as stale.
    for (int old : new int[] {200, 404, 409}) {
      BulkOutcome outcome =
          BulkOutcome.of(List.of(move, c), List.of(item(201), item(old), item(200)));
      assertThat(outcome.succeeded).isEqualTo(2);
      assertThat(outcome.retry).isEmpty();
      assertThat(outcome.failure()).isEmpty();
    }
    assertThat(BulkOutcome.of(List.of(move), List.of(item(201), item(503))).retry)
        .containsExactly(move);
    assertThat(BulkOutcome.of(List.of(move), List.of(item(201), item(400))).failure())
        .hasValueSatisfying(m -> assertThat(m).contains("moved from routing a"));
  }
}
