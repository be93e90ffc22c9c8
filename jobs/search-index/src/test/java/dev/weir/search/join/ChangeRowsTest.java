package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.documents.definition.DocumentPlan;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.InvalidEventException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeRowsTest {

  @Test
  void aTruncateGoesToTheDlqNamingItsTableAndWhatToDo() {
    ChangeRows rows =
        new ChangeRows(
            new DocumentPlan.Source(
                "public.review", "public", "review", Map.of("id", "uuid"), null, null, null),
            List.of("id"));
    ChangeEvent truncate =
        new ChangeEvent(
            null, null, Map.of("schema", "public", "table", "review", "lsn", 9L), "t", 1L, null);
    assertThatThrownBy(() -> rows.convert(truncate))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage(
            "TRUNCATE of public.review is not applied to the documents, which still hold its"
                + " rows: rebuild them from a new snapshot"
                + " (docs/document-definitions.md#truncate)");
  }
}
