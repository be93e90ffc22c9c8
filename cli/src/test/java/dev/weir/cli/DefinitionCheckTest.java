package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.SourceCatalog;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weir documents check}'s report, on a catalog in memory. */
class DefinitionCheckTest {

  private static final String BOOKS =
      """
      {"database": "library", "index": "books",
       "nodes": {"table": "book", "columns": ["id", "title", "tags"],
         "children": [
           {"table": "publisher", "columns": ["name"],
            "relationship": {"type": "one_to_one", "variant": "object"}},
           {"table": "author", "label": "authors", "columns": ["name"],
            "relationship": {"type": "one_to_many", "variant": "object",
                             "through_tables": ["book_author"]}},
           {"table": "book_keyword", "label": "keywords", "columns": ["word"],
            "relationship": {"type": "one_to_many", "variant": "scalar"}},
           {"table": "prices", "label": "price", "columns": ["amount"], "primary_key": ["sku"],
            "relationship": {"type": "one_to_one", "variant": "object",
                             "foreign_key": {"parent": ["sku"], "child": ["sku"]}},
            "weir": {"topic": "pricing.events", "version": "version",
                     "types": {"amount": "numeric(14,4)"}}}]}}
      """;

  private static final SourceCatalog CATALOG =
      (schema, table) ->
          Optional.ofNullable(
              switch (table) {
                case "book" ->
                    TableInfo.of(
                        schema,
                        table,
                        columns(
                            "id",
                            "bigint",
                            "title",
                            "text",
                            "tags",
                            "text[]",
                            "sku",
                            "text",
                            "publisher_id",
                            "bigint"),
                        List.of("id"),
                        List.of(fk("publisher_id", "publisher")));
                case "publisher" ->
                    TableInfo.of(
                        schema,
                        table,
                        columns("id", "bigint", "name", "text"),
                        List.of("id"),
                        List.of());
                case "author" ->
                    TableInfo.of(
                        schema,
                        table,
                        columns("id", "bigint", "name", "text"),
                        List.of("id"),
                        List.of());
                case "book_author" ->
                    TableInfo.of(
                        schema,
                        table,
                        columns("book_id", "bigint", "author_id", "bigint"),
                        List.of("book_id", "author_id"),
                        List.of(fk("book_id", "book"), fk("author_id", "author")));
                case "book_keyword" ->
                    TableInfo.of(
                        schema,
                        table,
                        columns("book_id", "bigint", "word", "text"),
                        List.of("book_id", "word"),
                        List.of(fk("book_id", "book")));
                default -> null;
              });

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @Test
  void aValidDocumentShowsItsTablesRelationshipsCopyAndMapping() {
    int failed = check("[" + BOOKS + "]");

    assertThat(failed).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString())
        .contains(
            "document 'books' (database library, read at jdbc:postgresql://db:5432/library):"
                + " alias books (first index books-v1), copy table books_document")
        .contains(
            """
            tables (key):
              public.book (id)
              public.publisher (id)
              public.book_author (book_id, author_id), link table
              public.author (id)
              public.book_keyword (book_id, word)
              topic pricing.events (sku), highest version wins
            """)
        .contains(
            """
            relationships:
              book.publisher: public.book(publisher_id) = public.publisher(id), one_to_one, object
              book.authors: public.book(id) = public.book_author(book_id),\
             public.book_author(author_id) = public.author(id), through public.book_author,\
             one_to_many, object
              book.keywords: public.book(id) = public.book_keyword(book_id), one_to_many, scalar
              book.price: public.book(sku) = topic pricing.events(sku), one_to_one, object
            """)
        .contains(
            """
            copy (PostgreSQL):
              CREATE TABLE IF NOT EXISTS "books_document" (
                "doc_id" text COLLATE "C" PRIMARY KEY,
                "id" bigint,
                "title" text,
                "tags" text[],
                "publisher" jsonb,
                "authors" jsonb,
                "keywords" jsonb,
                "price" jsonb,
                "content_hash" bytea NOT NULL,
                "doc_version" bigint NOT NULL
              ) WITH (fillfactor = 75);
            """)
        .contains("mapping (Elasticsearch):")
        .contains("\"dynamic\" : \"strict\"")
        .containsPattern(
            "\"price\" : \\{\\s+\"properties\" : \\{\\s+\"amount\" : \\{\\s+\"type\" : \"double\"");
  }

  @Test
  void aDocumentWeirCannotUseFailsNamingTheNodeAndTheOthersAreStillShown() {
    String broken = BOOKS.replace("\"books\"", "\"broken\"").replace("[\"word\"]", "[\"term\"]");

    int failed = check("[" + broken + ", " + BOOKS + "]");

    assertThat(failed).isEqualTo(1);
    assertThat(err.toString())
        .startsWith("invalid: document 'broken', node 'book.keywords': ")
        .contains("'term', which is not a column of public.book_keyword")
        .contains("(read at jdbc:postgresql://db:5432/library)");
    assertThat(out.toString()).doesNotContain("'broken'").contains("document 'books'");
  }

  @Test
  void rowFiltersAndTransformedFieldsAreShown() {
    String shelf =
        BOOKS
            .replace(
                "\"columns\": [\"id\", \"title\", \"tags\"],",
                """
                "columns": ["id", "title", "tags"], "weir": {"where": "title <> 'draft' and id>0"},
                "transform": {"rename": {"title": "book_title"}, "replace": {"title": {"-": " "}},
                              "concat": {"columns": ["id", "book_title"], "destination": "label"}},
                """)
            .replace("[\"word\"],", "[\"word\"], \"weir\": {\"where\": \"word NOT IN ('x')\"},");

    assertThat(check("[" + shelf + "]")).isZero();
    assertThat(out.toString())
        .contains(
            """
            row filters (weir.where):
              book: title <> 'draft' AND id > 0
              book.keywords: word NOT IN ('x')
            """)
        .contains("book.book_title: replace {-= }")
        .contains("book.label: ");
  }

  @Test
  void aFilterWeirCannotReadIsRefusedNamingTheNode() {
    String broken =
        BOOKS.replace("[\"word\"],", "[\"word\"], \"weir\": {\"where\": \"size > 3\"},");

    assertThat(check("[" + broken + "]")).isEqualTo(1);
    assertThat(err.toString())
        .startsWith("invalid: document 'books', node 'book.keywords': weir.where")
        .contains("size");
  }

  @Test
  void theCommandSaysWhatIsWrongWithTheFileBeforeItConnects(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("schema.json"), "{\"not\": \"a list\"}");
    StringWriter commandErr = new StringWriter();
    var cli = WeirCli.commandLine();
    cli.setErr(new PrintWriter(commandErr));

    int exit = cli.execute("documents", "check", file.toString(), "--catalog-url", "jdbc:none");

    assertThat(exit).isEqualTo(1);
    assertThat(commandErr.toString()).contains("invalid: ").contains("a list of documents");
  }

  @Test
  void theCatalogUrlDefaultsToTheSearchIndexJobs() {
    StringWriter help = new StringWriter();
    var cli = WeirCli.commandLine();
    cli.setOut(new PrintWriter(help));

    cli.execute("documents", "check", "--help");

    assertThat(help.toString().replaceAll("\\s+", ""))
        .contains("(default:jdbc:postgresql://127.0.0.1:15432/catalog)");
  }

  private int check(String definition) {
    return DefinitionCheck.check(
        DefinitionFile.parse(definition),
        database -> "jdbc:postgresql://db:5432/" + database,
        database -> CATALOG,
        WeirConfig.from(Map.of(), Map.of()),
        null,
        new PrintWriter(out),
        new PrintWriter(err));
  }

  private static Map<String, String> columns(String... namesAndTypes) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      columns.put(namesAndTypes[i], namesAndTypes[i + 1]);
    }
    return columns;
  }

  private static ForeignKey fk(String column, String table) {
    return new ForeignKey(List.of(column), "public", table, List.of("id"));
  }
}
