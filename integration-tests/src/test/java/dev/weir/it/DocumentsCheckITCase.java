package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cli.WeirCli;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.PostgresCatalog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weir documents check} against a real source database: keys and foreign keys (composite
 * too) come from its catalog, and the copy made from the plan takes the types format_type names.
 * The definition names its database, which is not the one of {@code --catalog-url}: it is read
 * there, on that URL's server, and the report says so.
 */
@ExtendWith(LocalStackExtension.class)
class DocumentsCheckITCase {

  private static final String DEFINITION =
      """
      [{"database": "%s", "index": "books",
        "nodes": {"table": "book", "columns": ["id", "title", "price", "tags", "published"],
          "children": [
            {"table": "author", "label": "authors", "columns": ["name"],
             "relationship": {"type": "one_to_many", "variant": "object",
                              "through_tables": ["book_author"]}},
            {"table": "edition", "label": "editions", "columns": ["isbn"],
             "relationship": {"type": "one_to_many", "variant": "scalar"}}]}}]
      """;

  @TempDir Path dir;
  private WeirConfig config;
  private String url;
  private String database;

  @BeforeEach
  void sourceDatabase() throws Exception {
    config = TestDatabases.fresh(LocalStackExtension.config(), "it_check");
    url = config.get(WeirOptions.POSTGRES_URL);
    database = DocumentOptions.database(url);
    TestDatabases.execute(
        config,
        url,
        "CREATE TABLE author (id bigint PRIMARY KEY, name text)",
        "CREATE TABLE book (id bigint PRIMARY KEY, title varchar(200), price numeric(10, 2),"
            + " tags text[], published timestamptz)",
        "CREATE TABLE book_author (book_id bigint REFERENCES book, author_id bigint REFERENCES"
            + " author, PRIMARY KEY (book_id, author_id))",
        "CREATE TABLE edition (book_id bigint REFERENCES book, no int, isbn char(13),"
            + " PRIMARY KEY (book_id, no))");
  }

  @Test
  void aDefinitionIsResolvedAgainstTheSourceCatalog() throws Exception {
    StringWriter out = new StringWriter();

    int exit = check(DEFINITION, out, new StringWriter());

    assertThat(exit).isZero();
    assertThat(out.toString())
        .contains("document 'books' (database " + database + ", read at " + url + "):")
        .contains("  public.edition (book_id, no)\n")
        .contains(
            "  book.authors: public.book(id) = public.book_author(book_id),"
                + " public.book_author(author_id) = public.author(id), through public.book_author,"
                + " one_to_many, object\n")
        .contains("  book.editions: public.book(id) = public.edition(book_id), one_to_many, scalar")
        .contains("\"title\" character varying(200),")
        .contains("\"price\" numeric(10,2),")
        .contains("\"published\" timestamp with time zone,");

    // The copy takes the catalog's types as they are: made once, found equal the next time.
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      DocumentPlan plan =
          DocumentPlanner.plan(
              DefinitionFile.parse(DEFINITION.formatted(database)).get(0), new PostgresCatalog(c));
      new DocumentCopy(plan).migrate(c);
      new DocumentCopy(plan).migrate(c);
    }
  }

  @Test
  void aTableTheDatabaseDoesNotHaveIsAnErrorNamingTheNode() throws Exception {
    StringWriter err = new StringWriter();

    int exit =
        check(DEFINITION.replace("\"edition\"", "\"editions_old\""), new StringWriter(), err);

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString())
        .contains("node 'book.editions'")
        .contains(
            "table public.editions_old does not exist in database '"
                + database
                + "' (read at "
                + url
                + ")");
  }

  private int check(String definition, StringWriter out, StringWriter err) throws Exception {
    Path file = Files.writeString(dir.resolve("schema.json"), definition.formatted(database));
    var cli = WeirCli.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    // The server's own database: the definition's is found on its server.
    String server = DocumentOptions.withDatabase(url, "postgres");
    return cli.execute("documents", "check", file.toString(), "--catalog-url", server);
  }
}
