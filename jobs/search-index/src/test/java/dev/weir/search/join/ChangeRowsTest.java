package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.documents.definition.DocumentPlan;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeRowsTest {

  @Test
  void aTruncateBecomesARowOfItsTableAtItsLsnAndOneWithoutLsnGoesToTheDlq() throws Exception {
    ChangeRows rows =
        new ChangeRows(
            "reviews",
            new DocumentPlan.Source(
                "public.review", "public", "review", Map.of("id", "uuid"), null, null, null),
            List.of("id"));
    ChangeEvent truncate =
        new ChangeEvent(
            null,
            null,
            Map.of("schema", "public", "table", "review", "lsn", 9L, "ts_ms", 5L),
            "t",
            1L,
            null);
    SourceRow row = rows.convert(truncate);
    assertThat(row.truncated).isTrue();
    assertThat(row.source).isEqualTo("public.review");
    assertThat(row.lsn).isEqualTo(9L);
    assertThat(row.time).isEqualTo(5L);
    assertThat(row.values).isNull();

    ChangeEvent withoutLsn =
        new ChangeEvent(null, null, Map.of("schema", "public", "table", "review"), "t", 1L, null);
    assertThatThrownBy(() -> rows.convert(withoutLsn))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith("TRUNCATE of public.review has no LSN (source.lsn)")
        .hasMessageContaining("docs/document-definitions.md#truncate");
  }

  @Test
  void aChangeWithoutADeclaredColumnGoesToTheDlqNamingTheColumnAndTheDefinition() throws Exception {
    ChangeRows rows =
        new ChangeRows(
            "books",
            new DocumentPlan.Source(
                "public.book",
                "public",
                "book",
                Map.of("id", "int8", "title", "text"),
                null,
                null,
                null),
            List.of("id"));
    Map<String, Object> source = Map.of("schema", "public", "table", "book", "lsn", 9L);
    // The column was renamed at the source: the row comes with the new name only.
    ChangeEvent renamed =
        new ChangeEvent(null, Map.of("id", 1L, "name", "Dune"), source, "u", 1L, null);
    assertThatThrownBy(() -> rows.convert(renamed))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith(
            "column 'title' of public.book, which the definition of document 'books' declares,"
                + " is not in this change (op 'u'; the row has ")
        .hasMessageContaining("dropped or renamed at the source?");
    // A delete's before carries the key only (replica identity default): applied.
    ChangeEvent delete = new ChangeEvent(Map.of("id", 1L), null, source, "d", 1L, null);
    assertThat(rows.convert(delete).deleted).isTrue();
    // A column the definition does not declare is ignored.
    ChangeEvent added =
        new ChangeEvent(
            null, Map.of("id", 2L, "title", "Emma", "isbn", "x"), source, "c", 1L, null);
    assertThat(Json.mapper().readTree(rows.convert(added).values))
        .isEqualTo(Json.mapper().readTree("{\"id\":2,\"title\":\"Emma\"}"));
  }

  @Test
  void anIncrementalSnapshotsReadIsOrderedByItsLsnAndAnInitialOnesStartsAnEpoch() throws Exception {
    ChangeRows rows =
        new ChangeRows(
            "reviews",
            new DocumentPlan.Source(
                "public.review", "public", "review", Map.of("id", "int8"), null, null, null),
            List.of("id"));
    ChangeEvent initial =
        new ChangeEvent(
            null,
            Map.of("id", 1L),
            Map.of("schema", "public", "table", "review", "lsn", 9L, "snapshot", "true"),
            "r",
            1L,
            null);
    ChangeEvent incremental =
        new ChangeEvent(
            null,
            Map.of("id", 1L),
            Map.of("schema", "public", "table", "review", "lsn", 9L, "snapshot", "incremental"),
            "r",
            1L,
            null);
    assertThat(rows.convert(initial).snapshot).isTrue();
    assertThat(rows.convert(incremental).snapshot).isFalse();
    assertThat(rows.convert(incremental).lsn).isEqualTo(9L);
  }
}
