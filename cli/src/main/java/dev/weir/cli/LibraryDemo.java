package dev.weir.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlan.Node;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.flink.core.execution.JobClient;

/**
 * The declared-documents part of {@code weir demo}: a library database nobody wrote Java for (book
 * → authors through book_author → city → country → continent; its publisher; reviews; subjects
 * through book_subject; text, uuid and integer keys), declared in schemas/documents/library.json,
 * captured, joined and indexed; then one change at every level, and one document before and after.
 */
final class LibraryDemo {

  static final String DATABASE = "weir_demo_library";
  static final String INDEX = "demo-books";
  private static final String SHOWN = "978-0-452-28423-4";

  /** The library's rows: a few books of three authors, on two continents. */
  private static final List<String> LIBRARY =
      List.of(
          "INSERT INTO continent VALUES ('as', 'Asia'), ('eu', 'Europe')",
          "INSERT INTO country VALUES ('in', 'India', 'as'), ('uk', 'United Kingdom', 'eu')",
          "INSERT INTO city VALUES ('motihari', 'Motihari', 'in'), ('london', 'London', 'uk'),"
              + " ('godalming', 'Godalming', 'uk')",
          "INSERT INTO author VALUES ('orwell', 'George Orwell', 'motihari'),"
              + " ('huxley', 'Aldous Huxley', 'godalming'), ('woolf', 'Virginia Woolf', 'london')",
          "INSERT INTO publisher VALUES ('secker', 'Secker & Warburg'), ('chatto', 'Chatto & Windus'),"
              + " ('hogarth', 'Hogarth Press')",
          "INSERT INTO subject VALUES (1, 'Dystopia'), (2, 'Politics'), (3, 'Satire'),"
              + " (4, 'Modernism')",
          book("978-0-452-28423-4", "Nineteen Eighty-Four", "1949-06-08", "secker"),
          book("978-0-452-28424-1", "Animal Farm", "1945-08-17", "secker"),
          book("978-0-06-085052-4", "Brave New World", "1932-01-01", "chatto"),
          book("978-0-15-603035-8", "Mrs Dalloway", "1925-05-14", "hogarth"),
          "INSERT INTO book_author VALUES ('978-0-452-28423-4', 'orwell'),"
              + " ('978-0-452-28424-1', 'orwell'), ('978-0-06-085052-4', 'huxley'),"
              + " ('978-0-15-603035-8', 'woolf')",
          "INSERT INTO book_subject VALUES ('978-0-452-28423-4', 1), ('978-0-452-28423-4', 2),"
              + " ('978-0-452-28424-1', 3), ('978-0-06-085052-4', 1), ('978-0-15-603035-8', 4)",
          "INSERT INTO review VALUES ('6f1c0d1e-0000-4000-8000-000000000001', '978-0-452-28423-4',"
              + " 5, 'Chilling, and more so every year.')");

  /** One change at every level of the document, each in its own transaction: what, and the SQL. */
  private static final List<String[]> CHANGES =
      List.of(
          new String[] {
            "the book itself (root): a new price",
            "UPDATE book SET price = 8.99 WHERE isbn = '978-0-452-28423-4'"
          },
          new String[] {
            "its publisher (one-to-one, object) renamed, for both of its books",
            "UPDATE publisher SET name = 'Secker and Warburg' WHERE id = 'secker'"
          },
          new String[] {
            "a review (one-to-many) added",
            "INSERT INTO review VALUES ('6f1c0d1e-0000-4000-8000-000000000002',"
                + " '978-0-452-28423-4', 4, 'Bleak and exact.')"
          },
          new String[] {
            "a subject (scalar, through book_subject) removed",
            "DELETE FROM book_subject WHERE book_isbn = '978-0-452-28423-4' AND subject_id = 2"
          },
          new String[] {
            "a co-author (through book_author) added",
            "INSERT INTO book_author VALUES ('978-0-452-28423-4', 'woolf')"
          },
          new String[] {
            "a city, a country and a continent (2 to 4 levels below the book) renamed",
            "UPDATE city SET name = 'Greater London' WHERE id = 'london';"
                + " UPDATE country SET name = 'Republic of India' WHERE code = 'in';"
                + " UPDATE continent SET name = 'Asian continent' WHERE id = 'as'"
          });

  private LibraryDemo() {}

  /**
   * @param base the demo's configuration; its database gets the copy table book_document
   * @return a line for the demo's summary
   */
  static String run(
      PrintWriter out, LocalStack stack, Connections connections, WeirConfig base, int webPort)
      throws Exception {
    stack.ensurePostgresDatabase(DATABASE);
    String libraryUrl = connections.postgresJdbcUrl(DATABASE);
    WeirConfig config =
        CaptureOptions.ownCatalog(base, libraryUrl, DATABASE, "demo.library", INDEX)
            .with(
                DocumentOptions.DOCUMENTS,
                BundledDocuments.write(
                        stack.envFile().getParent().resolve("demo").resolve("library.json"),
                        "library.json",
                        DATABASE,
                        INDEX,
                        null)
                    .toString());
    CatalogCaptureJob.dropSlot(config);
    stack.recreatePostgresDatabase(DATABASE);
    execute(config, libraryUrl, List.of(BundledDocuments.read("library.sql")));
    execute(config, libraryUrl, LIBRARY);
    DocumentPlan plan = Definitions.plans(config).get(0);
    KafkaTopics.deleteTopics(config, Definitions.topics(config, List.of(plan)));
    SearchCluster es = ElasticsearchConnection.cluster(config);
    try {
      for (String index : es.indices(INDEX + "*")) {
        es.deleteIndex(index);
      }

      out.printf(
          "== 9. declared documents: database %s, document declared in"
              + " schemas/documents/library.json (PGSync's format, no Java); what weir found:%n",
          DATABASE);
      for (Node node : plan.nodes()) {
        if (!node.isRoot() && !node.link()) {
          out.println("   " + DefinitionCheck.relationship(plan, node));
        }
      }
      out.flush();
      JobClient capture =
          JobRunner.start(
              new CatalogCaptureJob(), RunCommand.localEnvironment(webPort + 3), config);
      JobClient indexer =
          JobRunner.start(new SearchIndexJob(), RunCommand.localEnvironment(webPort + 4), config);
      try {
        long[] indexed = DemoCommand.awaitStable(() -> documents(config, plan, es));
        TableStats copyBefore = copyStats(config, plan);
        out.printf(
            "   snapshot indexed: %d books in the copy table %s (%d TOAST tuples: their"
                + " descriptions), %d documents behind %s%n",
            indexed[0], plan.copyTable(), copyBefore.toastInserted(), indexed[2], INDEX);
        JsonNode before = document(es, SHOWN);
        out.println("   the document of " + SHOWN + " (description cut short here):");
        print(out, before);

        out.println("== 10. one change at every level of the document, in the library database:");
        for (String[] change : CHANGES) {
          out.println("   - " + change[0]);
          execute(config, libraryUrl, List.of(change[1]));
        }
        out.flush();
        DemoCommand.awaitStable(() -> documents(config, plan, es));
        TableStats written = copyStats(config, plan).minus(copyBefore);
        JsonNode after = document(es, SHOWN);
        out.println("   the same document after (no query to the library: only its changes):");
        print(out, after);
        out.println("   what changed:");
        differences(out, "", before, after);
        out.printf(
            "   %s: %d rows updated (only the changed columns), %d TOAST tuples written (the"
                + " 6 kB descriptions, stored out of line, were not written again)%n",
            plan.copyTable(), written.updated(), written.toastInserted());
        return String.format(
            "cdc-catalog + search-index, declared (library.json): %d books indexed, %d changes"
                + " at every level, %d copy rows updated",
            indexed[0], CHANGES.size(), written.updated());
      } finally {
        capture.cancel().get();
        indexer.cancel().get();
        CatalogCaptureJob.dropSlot(config);
      }
    } finally {
      es.close();
    }
  }

  private static String book(String isbn, String title, String published, String publisher) {
    // Random words: a value PostgreSQL cannot compress below its TOAST threshold (2 kB), as real
    // descriptions of this size are not.
    Random random = new Random(isbn.hashCode());
    StringBuilder description = new StringBuilder(title).append(':');
    while (description.length() < 6000) {
      description.append(' ');
      for (int i = 2 + random.nextInt(8); i > 0; i--) {
        description.append((char) ('a' + random.nextInt(26)));
      }
    }
    return String.format(
        "INSERT INTO book VALUES ('%s', '%s', '%s', 9.99, '%s', '{\"edition\": \"first\"}', '%s')",
        isbn, title, description, published, publisher);
  }

  /** Runs each entry in its own transaction (an entry may hold several statements). */
  private static void execute(WeirConfig config, String url, List<String> statements)
      throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      for (String sql : statements) {
        c.createStatement().execute(sql);
      }
    }
  }

  /** Rows in the copy, a digest of their versions, documents in Elasticsearch. */
  private static long[] documents(WeirConfig config, DocumentPlan plan, SearchCluster es)
      throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT count(*), coalesce(sum("
                        + DocumentPlan.DOC_VERSION
                        + "::numeric), 0)::text FROM "
                        + plan.copyTable())) {
      rs.next();
      es.refresh(INDEX);
      return new long[] {rs.getLong(1), rs.getString(2).hashCode(), es.count(INDEX)};
    } catch (SQLException e) {
      return new long[] {0, 0, 0}; // the copy table is made when the job starts
    }
  }

  private static TableStats copyStats(WeirConfig config, DocumentPlan plan) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return TableStats.read(c, plan.copyTable());
    }
  }

  private static JsonNode document(SearchCluster es, String id) throws IOException {
    ObjectNode source =
        (ObjectNode) es.get("/" + INDEX + "/_doc/" + SearchCluster.encode(id)).get("_source");
    source.remove(DocumentPlan.CONTENT_HASH);
    String description = source.path("description").asText("");
    if (description.length() > 40) {
      source.put(
          "description", description.substring(0, 40) + "… (" + description.length() + " chars)");
    }
    return source;
  }

  private static void print(PrintWriter out, JsonNode document) throws IOException {
    String pretty = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(document);
    out.println("     " + pretty.replace("\n", "\n     "));
    out.flush();
  }

  /** One line per leaf value that differs: {@code authors[0].city.name: "London" → "..."}. */
  private static void differences(PrintWriter out, String path, JsonNode before, JsonNode after) {
    if (before != null && after != null && before.isObject() && after.isObject()) {
      Set<String> names = new LinkedHashSet<>();
      before.fieldNames().forEachRemaining(names::add);
      after.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        differences(
            out, path.isEmpty() ? name : path + "." + name, before.get(name), after.get(name));
      }
    } else if (before != null && after != null && before.isArray() && after.isArray()) {
      for (int i = 0; i < Math.max(before.size(), after.size()); i++) {
        differences(out, path + "[" + i + "]", before.get(i), after.get(i));
      }
    } else if (before == null ? after != null : !before.equals(after)) {
      out.printf(
          "     %s: %s → %s%n",
          path, before == null ? "(none)" : before, after == null ? "(none)" : after);
    }
  }
}
