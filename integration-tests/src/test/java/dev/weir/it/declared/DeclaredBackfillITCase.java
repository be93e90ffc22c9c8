package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.it.TestDatabases.Source;
import dev.weir.search.SearchIndexJob;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * weir backfill of a declared document on the real stack: the library database
 * (schemas/documents/library.sql, text and uuid keys) → cdc-catalog → search-index with
 * schemas/documents/library.json → the copy table and the index; then a rebuild of that index from
 * the copy table into a new index while changes go on, the alias swapped to it.
 */
@ExtendWith(LocalStackExtension.class)
class DeclaredBackfillITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(8).build());

  private static final Duration WAIT = Duration.ofSeconds(180);
  private static final int BOOKS = 400;
  private static final String DOOMED = "978-doomed";

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private WeirConfig config;
  private String libraryUrl;
  private DocumentPlan plan;
  private String alias;
  private SearchCluster es;
  private JobClient capture;
  private JobClient indexer;

  @AfterEach
  void stop() throws Exception {
    DocumentSides.stop(config, capture, indexer);
  }

  @Test
  void aRebuildWhileChangesGoOnEndsEqualToTheCopyAsStreamedAndAReRunSendsNothing()
      throws Exception {
    start();
    awaitConverged("the snapshot");
    String v1 = only(behind(alias));
    // What the backfill reads from the copy is what the streaming job wrote, byte for byte,
    // although PostgreSQL prints the copy's 7.50 (numeric(10,2)) and reorders its jsonb keys.
    Map<String, DocumentCopy.CopiedDocument> snapshot = copiedDocuments();
    assertThat(snapshot).hasSize(BOOKS + 1);
    for (DocumentCopy.CopiedDocument d : snapshot.values()) {
      assertThat(rawSource(v1, d.id()))
          .as("%s streamed into %s", d.id(), v1)
          .isEqualTo(new String(d.source(), StandardCharsets.UTF_8));
    }
    String v2 = alias + "-v2";

    AtomicBoolean changing = new AtomicBoolean(true);
    AtomicReference<Throwable> changeFailure = new AtomicReference<>();
    AtomicLong changes = new AtomicLong();
    Thread changer =
        new Thread(() -> change(changing, changes, changeFailure), "changes to the library");
    AtomicLong searches = new AtomicLong();
    AtomicReference<String> badSearch = new AtomicReference<>();
    Thread searcher =
        new Thread(
            () -> {
              while (changing.get()) {
                try {
                  long n = es.count(alias);
                  searches.incrementAndGet();
                  if (n < BOOKS / 2) {
                    badSearch.compareAndSet(null, "the alias counted " + n + " documents");
                  }
                } catch (Exception e) {
                  badSearch.compareAndSet(null, e.toString());
                }
              }
            },
            "searcher");
    changer.start();
    searcher.start();
    Backfill.Summary first;
    try {
      first =
          Backfill.run(
              config.with(BackfillOptions.TARGET, v2),
              true,
              StreamExecutionEnvironment::getExecutionEnvironment,
              new Backfill.Progress() {
                @Override
                public void update(String pass, long done, long total, double rate) {}

                @Override
                public void ended(String pass) {
                  if (pass.equals("copy")) {
                    deleteWhileTheTargetHoldsIt(v1, v2);
                  }
                }
              });
    } finally {
      changing.set(false);
      changer.join();
      searcher.join();
    }
    System.out.println(
        "DeclaredBackfillITCase: " + first + ", " + changes.get() + " changes meanwhile");
    assertThat(changeFailure.get()).isNull();
    assertThat(changes.get()).as("changes made during the backfill").isGreaterThan(20);
    assertThat(badSearch.get()).isNull();
    assertThat(searches.get()).isGreaterThan(10);
    assertThat(first.swapped()).isTrue();
    assertThat(first.sent()).isGreaterThanOrEqualTo(BOOKS);
    assertThat(first.deleted()).as("deleted from the target (gone from the copy)").isPositive();
    assertThat(behind(alias)).containsExactly(v2);

    // The alias serves what the copy holds and a SQL join of the source builds: every document.
    awaitConverged("after the backfill and the swap");
    assertThat(exists(v2, DOOMED)).as("a book deleted during the backfill").isFalse();
    // External versions are the copy's.
    assertThat(indexedVersions(v2)).isEqualTo(copiedVersions());
    // Byte for byte: the target holds the copy's documents as the streaming job writes them.
    Map<String, DocumentCopy.CopiedDocument> copied = copiedDocuments();
    for (DocumentCopy.CopiedDocument d : copied.values()) {
      assertThat(rawSource(v2, d.id()))
          .as("%s in %s", d.id(), v2)
          .isEqualTo(new String(d.source(), StandardCharsets.UTF_8));
    }
    assertThat(copied.values())
        .anySatisfy(
            d -> assertThat(new String(d.source(), StandardCharsets.UTF_8)).contains(".5,"));

    // A second run sends nothing: every document is held with its hash.
    Backfill.Summary again =
        Backfill.run(
            config.with(BackfillOptions.TARGET, v2),
            false,
            StreamExecutionEnvironment::getExecutionEnvironment,
            (pass, done, total, rate) -> {});
    System.out.println("DeclaredBackfillITCase, second run: " + again);
    assertThat(again.sent()).isZero();
    assertThat(again.deleted()).isZero();
    assertThat(again.skippedUnchanged()).isEqualTo(again.documents()).isEqualTo(copied.size());
    assertThat(again.bytesSent()).isZero();

    // A dry run compares and counts, and sends nothing.
    String v3 = alias + "-v3";
    Backfill.Summary dry =
        Backfill.run(
            config.with(BackfillOptions.TARGET, v3).with(BackfillOptions.DRY_RUN, "true"),
            true,
            StreamExecutionEnvironment::getExecutionEnvironment,
            (pass, done, total, rate) -> {});
    assertThat(dry.sent()).isEqualTo(copied.size());
    assertThat(dry.swapped()).isFalse();
    es.refresh(v3);
    assertThat(es.count(v3)).isZero();
    assertThat(behind(alias)).containsExactly(v2);
  }

  // --- the stack

  private void start() throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_declared_backfill");
    Source library =
        TestDatabases.freshSource(
            base, "it_library_backfill_" + run, resource("weir/schemas/documents/library.sql"));
    libraryUrl = library.url();
    alias = "it-bf-books-" + run;
    Path definition = dir.resolve("library.json");
    Files.writeString(
        definition,
        resource("weir/schemas/documents/library.json")
            .replace("\"database\": \"library\"", "\"database\": \"" + library.database() + "\"")
            .replace("\"index\": \"books\"", "\"index\": \"" + alias + "\""));
    config =
        TestDatabases.declaring(base, library, definition, "it.dbf", run)
            .with(BackfillOptions.SPLIT_SIZE, "37")
            .with(BackfillOptions.SETTLE, "3 s");
    plan = Definitions.plans(config).get(0);
    es = ElasticsearchConnection.cluster(config);
    seed();
    capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(), config);
  }

  /**
   * Books with text keys (some not ASCII), reviews with uuid keys, authors four levels deep,
   * subjects with integer keys; prices with a trailing zero (7.50), which PostgreSQL prints as such
   * and the join writes as 7.5.
   */
  private void seed() throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, libraryUrl)) {
      c.setAutoCommit(false);
      var s = c.createStatement();
      s.execute("INSERT INTO continent VALUES ('eu', 'Europe'), ('as', 'Asia')");
      s.execute("INSERT INTO country VALUES ('uk', 'United Kingdom', 'eu'), ('in', 'India', 'as')");
      s.execute(
          "INSERT INTO city VALUES ('c-motihari', 'Motihari', 'in'), ('c-london', 'London', 'uk')");
      s.execute(
          "INSERT INTO author VALUES ('a-orwell', 'George Orwell', 'c-motihari'),"
              + " ('a-huxley', 'Aldous Huxley', 'c-london')");
      s.execute(
          "INSERT INTO publisher VALUES ('p-secker', 'Secker & Warburg'), ('p-chatto', 'Chatto')");
      s.execute("INSERT INTO subject VALUES (1, 'Dystopia'), (2, 'Politics'), (10, 'Satire')");
      try (PreparedStatement book =
              c.prepareStatement(
                  "INSERT INTO book VALUES (?, ?, ?, ?, DATE '1949-06-08', '{\"shelf\": \"classics\","
                      + " \"n\": 1}', ?)");
          PreparedStatement author = c.prepareStatement("INSERT INTO book_author VALUES (?, ?)");
          PreparedStatement subject = c.prepareStatement("INSERT INTO book_subject VALUES (?, ?)");
          PreparedStatement review =
              c.prepareStatement("INSERT INTO review VALUES (?::uuid, ?, ?, ?)")) {
        List<String> isbns = new ArrayList<>(isbns());
        isbns.add(DOOMED);
        int i = 0;
        for (String isbn : isbns) {
          book.setString(1, isbn);
          book.setString(2, "Book " + i);
          book.setString(3, RandomLibrary.description(i));
          book.setBigDecimal(4, new BigDecimal((i % 90) + ".50"));
          book.setString(5, i % 3 == 0 ? "p-chatto" : "p-secker");
          book.addBatch();
          author.setString(1, isbn);
          author.setString(2, i % 2 == 0 ? "a-orwell" : "a-huxley");
          author.addBatch();
          subject.setString(1, isbn);
          subject.setInt(2, 1 + i % 2);
          subject.addBatch();
          review.setString(
              1, UUID.nameUUIDFromBytes(isbn.getBytes(StandardCharsets.UTF_8)).toString());
          review.setString(2, isbn);
          review.setInt(3, 1 + i % 5);
          review.setString(4, "Review of " + isbn);
          review.addBatch();
          i++;
        }
        book.executeBatch();
        author.executeBatch();
        subject.executeBatch();
        review.executeBatch();
      }
      c.commit();
    }
  }

  private static List<String> isbns() {
    List<String> isbns = new ArrayList<>();
    for (int i = 0; i < BOOKS; i++) {
      isbns.add(i % 10 == 0 ? "b-ünï-" + i : String.format("978-%07d", i * 7919 % 1_000_003));
    }
    return isbns;
  }

  /**
   * Until stopped: prices and titles of the books changed, some deleted and added back, reviews
   * added, and random changes at every level of the library's small key space (RandomLibrary).
   */
  private void change(
      AtomicBoolean changing, AtomicLong changes, AtomicReference<Throwable> failure) {
    Random random = new Random(24);
    RandomLibrary library = new RandomLibrary(new Random(7));
    List<String> isbns = isbns();
    try (Connection c = PostgresConnectionProvider.open(config, libraryUrl)) {
      c.setAutoCommit(false);
      while (changing.get()) {
        String isbn = isbns.get(random.nextInt(isbns.size()));
        var s = c.createStatement();
        switch (random.nextInt(10)) {
          case 0 -> s.execute("DELETE FROM book WHERE isbn = '" + isbn + "'");
          case 1 ->
              s.execute(
                  "INSERT INTO book VALUES ('"
                      + isbn
                      + "', 'Back', 'short', 1.10, NULL, NULL, 'p-chatto')"
                      + " ON CONFLICT (isbn) DO UPDATE SET title = 'Back again'");
          case 2 ->
              s.execute(
                  "INSERT INTO review VALUES ('"
                      + UUID.randomUUID()
                      + "', '"
                      + isbn
                      + "', 3, 'Another')");
          case 3 -> library.transaction(c, 3);
          default ->
              s.execute(
                  "UPDATE book SET price = "
                      + random.nextInt(100)
                      + ".50, title = 'Changed "
                      + random.nextInt(1000)
                      + "' WHERE isbn = '"
                      + isbn
                      + "'");
        }
        c.commit();
        changes.incrementAndGet();
        Thread.sleep(20);
      }
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  /**
   * Between the copy pass and the swap: a book deleted, and waited for until the streaming job has
   * taken it out of the copy and the old index. The target got it in the copy pass; only the delete
   * pass can take it out.
   */
  private void deleteWhileTheTargetHoldsIt(String v1, String v2) {
    try {
      assertThat(exists(v2, DOOMED)).as("sent by the copy pass").isTrue();
      try (Connection c = PostgresConnectionProvider.open(config, libraryUrl)) {
        c.createStatement().execute("DELETE FROM book WHERE isbn = '" + DOOMED + "'");
      }
      Await.until(WAIT, () -> !inTheCopy(DOOMED) && !exists(v1, DOOMED), gone -> gone);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  // --- what each side holds

  private record Sides(
      Map<String, JsonNode> expected, Map<String, JsonNode> indexed, Map<String, JsonNode> copied) {
    boolean converged() {
      return expected.equals(indexed) && expected.equals(copied);
    }
  }

  private void awaitConverged(String step) throws Exception {
    Sides sides = Await.until(WAIT, this::sides, Sides::converged);
    assertThat(sides.indexed()).as("%s: Elasticsearch", step).isEqualTo(sides.expected());
    assertThat(sides.copied()).as("%s: the copy", step).isEqualTo(sides.expected());
  }

  private Sides sides() throws Exception {
    Map<String, JsonNode> expected;
    try (Connection c = PostgresConnectionProvider.open(config, libraryUrl)) {
      expected = SqlDocuments.read(c, plan);
    }
    return new Sides(expected, indexed(), copied());
  }

  private Map<String, JsonNode> indexed() throws Exception {
    return DocumentSides.indexed(es, alias);
  }

  private Map<String, JsonNode> copied() throws Exception {
    return DocumentSides.normalized(copiedDocuments().values());
  }

  private Map<String, DocumentCopy.CopiedDocument> copiedDocuments() throws Exception {
    Map<String, DocumentCopy.CopiedDocument> docs = new TreeMap<>();
    try (Connection c = PostgresConnectionProvider.open(config)) {
      for (DocumentCopy.CopiedDocument d : new DocumentCopy(plan).readRange(c, null, null)) {
        docs.put(d.id(), d);
      }
    }
    return docs;
  }

  private Map<String, Long> copiedVersions() throws Exception {
    Map<String, Long> versions = new TreeMap<>();
    copiedDocuments().forEach((id, d) -> versions.put(id, d.version()));
    return versions;
  }

  private Map<String, Long> indexedVersions(String index) throws Exception {
    Map<String, Long> versions = new TreeMap<>();
    for (JsonNode hit : SearchDocuments.hits(es, index)) {
      versions.put(hit.path("_id").asText(), hit.path("_version").asLong());
    }
    return versions;
  }

  private boolean inTheCopy(String id) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config);
        PreparedStatement s =
            c.prepareStatement("SELECT 1 FROM " + plan.copyTable() + " WHERE doc_id = ?")) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next();
      }
    }
  }

  private boolean exists(String index, String id) throws Exception {
    return SearchDocuments.exists(es, index, id);
  }

  /** The document's _source exactly as the engine stored it, or null. */
  private String rawSource(String index, String id) throws Exception {
    return SearchDocuments.rawSource(es, index, id);
  }

  private Set<String> behind(String alias) throws Exception {
    return es.indicesBehind(alias);
  }

  private static String only(Set<String> indices) {
    assertThat(indices).hasSize(1);
    return indices.iterator().next();
  }

  private static String resource(String name) throws Exception {
    try (InputStream in = DeclaredBackfillITCase.class.getClassLoader().getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
