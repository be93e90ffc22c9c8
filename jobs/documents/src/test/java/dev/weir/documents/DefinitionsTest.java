package dev.weir.documents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.definition.DocumentSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DefinitionsTest {

  @TempDir Path dir;

  @Test
  void aGenerationWritesItsOwnCopyTableThroughItsOwnAlias() throws Exception {
    Path file = file("a.json", "books", "book_document");
    WeirConfig config =
        WeirConfig.from(Map.of(DocumentOptions.DOCUMENTS.key(), file.toString()), Map.of());
    DocumentSpec current = Definitions.specs(config).get(0);
    DocumentSpec g2 = Definitions.specs(config.with(WeirOptions.GENERATION, "g2")).get(0);
    assertThat(current.index()).isEqualTo("books");
    assertThat(current.copyTable()).isEqualTo("book_document");
    assertThat(g2.index()).isEqualTo("books-g2");
    assertThat(g2.copyTable()).isEqualTo("book_document_g2");
    assertThat(g2.root()).isEqualTo(current.root());
    assertThatThrownBy(() -> Definitions.specs(config.with(WeirOptions.GENERATION, "G-2")))
        .hasMessageContaining("search.generation");
  }

  @Test
  void severalFilesAreReadInTurnAndOneIndexTwiceIsRefusedForAnIndexer() throws Exception {
    Path a = file("a.json", "books", "book_document");
    Path b = file("b.json", "shelves", "shelf_document");
    Path again = file("c.json", "books", "book_document");
    List<DocumentSpec> both =
        Definitions.specs(
            WeirConfig.from(Map.of(DocumentOptions.DOCUMENTS.key(), a + ", " + b), Map.of()));
    assertThat(both).extracting(DocumentSpec::index).containsExactly("books", "shelves");
    Definitions.requireOneDocumentPerIndex(both);
    List<DocumentSpec> twice =
        Definitions.specs(
            WeirConfig.from(Map.of(DocumentOptions.DOCUMENTS.key(), a + "," + again), Map.of()));
    assertThat(twice).hasSize(2);
    assertThatThrownBy(() -> Definitions.requireOneDocumentPerIndex(twice))
        .isInstanceOf(DefinitionException.class)
        .hasMessageContaining("two documents write the index books");
  }

  private Path file(String name, String index, String copyTable) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(
        file,
        """
        [{"database": "library", "index": "%s", "weir": {"copy_table": "%s"},
          "nodes": {"table": "book", "columns": ["isbn", "title"]}}]
        """
            .formatted(index, copyTable));
    return file;
  }
}
