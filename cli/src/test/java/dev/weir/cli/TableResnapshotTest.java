package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.documents.definition.TableInfo;
import dev.weir.schema.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableResnapshotTest {

  private static List<DocumentSpec> library() throws Exception {
    return DefinitionFile.parse(Files.readString(Path.of("../schemas/documents/library.json")));
  }

  @Test
  void aTableIsFoundByItsNameAmongTheNodesAndAnUndeclaredOneIsRefusedNamingTheOthers()
      throws Exception {
    assertThat(TableResnapshot.tables(library(), "review"))
        .containsExactly(new TableResnapshot.Table("library", "public", "review"));
    assertThat(TableResnapshot.tables(library(), "public.review"))
        .containsExactly(new TableResnapshot.Table("library", "public", "review"));
    assertThatThrownBy(() -> TableResnapshot.tables(library(), "loan"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("no document of the file reads a table loan")
        .hasMessageContaining("public.review");
  }

  @Test
  void numericAndJsonColumnsAreReadAsTheirTextTheRestAsToJsonb() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "int8");
    columns.put("price", "numeric(10,2)");
    columns.put("attrs", "jsonb");
    columns.put("tags", "text[]");
    TableInfo info = new TableInfo("public", "book", columns, List.of("id"), List.of());
    assertThat(TableResnapshot.select(info))
        .isEqualTo(
            "SELECT (to_jsonb(t) || jsonb_build_object('price', t.\"price\"::text, 'attrs',"
                + " t.\"attrs\"::text))::text FROM \"public\".\"book\" t");
  }

  @Test
  void aReadIsAnIncrementalSnapshotsEventAtItsStamp() throws Exception {
    JsonNode event =
        Json.mapper()
            .readTree(
                TableResnapshot.event(
                    "r",
                    Json.mapper().createObjectNode().put("id", 7),
                    new TableResnapshot.Table("library", "public", "review"),
                    41));
    assertThat(event.path("op").asText()).isEqualTo("r");
    assertThat(event.path("after").path("id").asInt()).isEqualTo(7);
    assertThat(event.path("source").path("lsn").asLong()).isEqualTo(41);
    assertThat(event.path("source").path("snapshot").asText()).isEqualTo("incremental");
    assertThat(event.path("source").path("table").asText()).isEqualTo("review");
    assertThat(TableResnapshot.lsnText(0x16B374D848L)).isEqualTo("16/B374D848");
  }
}
