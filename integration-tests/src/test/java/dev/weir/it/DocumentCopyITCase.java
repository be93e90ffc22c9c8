package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.CopyWrite;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.copy.DocumentCopy.CopiedDocument;
import dev.weir.documents.copy.DocumentCopyStore;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.SourceCatalog;
import dev.weir.documents.definition.TableInfo;
import dev.weir.schema.Json;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Postgres copy of a declared document on real PostgreSQL: made from the plan, written only
 * where values changed (an unchanged large value is never rewritten: 0 TOAST tuples), guarded by
 * versions, read back for the backfill, migrated when the definition grows.
 */
@ExtendWith(LocalStackExtension.class)
class DocumentCopyITCase {

  private static final String TABLE = "book_document";

  private final DocumentPlan plan = BookDocuments.plan("books", TABLE);
  private final DocumentCopy copy = new DocumentCopy(plan);
  private WeirConfig config;
  private Connection sql;
  private DocumentCopyStore writer;

  @BeforeEach
  void freshCopy() throws Exception {
    config = TestDatabases.fresh(LocalStackExtension.config(), "it_copy");
    sql = PostgresConnectionProvider.open(config);
    copy.migrate(sql);
    writer = copy.store(PostgresConnectionProvider.open(config));
  }

  @AfterEach
  void close() throws Exception {
    writer.close();
    sql.close();
  }

  @Test
  void aSmallChangeLeavesTheLargeValueAloneAndAnOlderVersionNeverOverwritesANewerOne()
      throws Exception {
    String large = randomLetters(12_000, 1);
    Map<String, String> book = book(large);
    write(BookDocuments.change(plan, "1", 1, book));
    TableStats before = TableStats.read(sql, TABLE);

    // A new title: an UPDATE of the title alone.
    book.put("title", json("Dune Messiah"));
    write(BookDocuments.change(plan, "1", 2, book, "title"));
    // The whole document again (as after a restart of the join): only the price differs.
    book.put("price", "13.5");
    write(BookDocuments.change(plan, "1", 3, book));
    TableStats unchangedLarge = TableStats.read(sql, TABLE).minus(before);

    assertThat(unchangedLarge.toastInserted()).as("TOAST tuples written").isZero();
    assertThat(unchangedLarge.updated()).isEqualTo(2);
    JsonNode doc = document("1");
    assertThat(doc.get("title").asText()).isEqualTo("Dune Messiah");
    assertThat(doc.get("price").decimalValue()).isEqualByComparingTo("13.50");
    assertThat(doc.get("description").asText()).isEqualTo(large);

    // The measure sees a rewritten large value: a new description writes its chunks.
    String otherLarge = randomLetters(12_000, 2);
    book.put("description", json(otherLarge));
    write(BookDocuments.change(plan, "1", 4, book, "description"));
    assertThat(TableStats.read(sql, TABLE).minus(before).toastInserted())
        .as("TOAST tuples written for a new large value")
        .isGreaterThan(unchangedLarge.toastInserted());

    // Late writes of older versions, as an update and as a whole document: nothing changes.
    Map<String, String> stale = new HashMap<>(book);
    stale.put("title", json("Stale"));
    stale.put("description", json("stale"));
    write(BookDocuments.change(plan, "1", 3, stale, "title", "description"));
    write(BookDocuments.change(plan, "1", 2, stale));
    doc = document("1");
    assertThat(doc.get("title").asText()).isEqualTo("Dune Messiah");
    assertThat(doc.get("description").asText()).isEqualTo(otherLarge);
    assertThat(copied("1").version()).isEqualTo(4);

    // A delete of an older version leaves the document; of a newer one removes it.
    write(DocumentChange.deletion("1", 4));
    assertThat(copy.read(sql, List.of("1"))).hasSize(1);
    write(DocumentChange.deletion("1", 5));
    assertThat(copy.read(sql, List.of("1"))).isEmpty();
  }

  /**
   * What a replay, or a job started again without its state, writes: documents the copy holds
   * already, under other versions. The copy keeps what it has and says which version to pass on to
   * the index; a document it holds newer and different is not passed on.
   */
  @Test
  void aDocumentTheCopyHoldsAlreadyIsNotWrittenAndKeepsTheCopysVersion() throws Exception {
    Map<String, String> book = book("the same");
    write(BookDocuments.change(plan, "1", 10, book));
    TableStats before = TableStats.read(sql, TABLE);

    assertThat(writer.write(List.of(BookDocuments.change(plan, "1", 12, book))).held())
        .as("the same content, newer: the copy's version passed on")
        .containsExactly(Map.entry("1", 10L));
    assertThat(writer.write(List.of(BookDocuments.change(plan, "1", 7, book, "title"))).held())
        .as("the same content, older")
        .containsExactly(Map.entry("1", 10L));
    Map<String, String> other = new HashMap<>(book);
    other.put("title", json("Other"));
    assertThat(writer.write(List.of(BookDocuments.change(plan, "1", 9, other, "title"))).held())
        .as("other content, older: nothing to pass on")
        .isEmpty();
    assertThat(TableStats.read(sql, TABLE).minus(before).updated()).isZero();
    assertThat(copied("1").version()).isEqualTo(10);

    assertThat(writer.write(List.of(BookDocuments.change(plan, "1", 11, other, "title"))).held())
        .containsExactly(Map.entry("1", 11L));
    assertThat(writer.write(List.of(DocumentChange.deletion("2", 3))).held())
        .as("a deletion of what the copy does not hold is passed on")
        .containsExactly(Map.entry("2", 3L));
  }

  /**
   * After a restart from a checkpoint the job may write a document the copy holds further: at a
   * version of the same stamp that it does not exceed (raised once per piece before the restart),
   * the copy takes it whole, above its own version; at an older stamp, it does not.
   */
  @Test
  void aDocumentTheCopyMayHoldFurtherIsSettledByTheStampOfItsVersion() throws Exception {
    long stamp = 5L << DocumentChange.RAISE_BITS;
    Map<String, String> piece = book("a piece");
    write(BookDocuments.change(plan, "1", stamp, piece));
    write(BookDocuments.change(plan, "1", stamp + 3, book("a bigger piece"), "description"));
    write(BookDocuments.change(plan, "2", stamp + 2, piece));
    write(BookDocuments.change(plan, "3", (6L << DocumentChange.RAISE_BITS), piece));

    Map<String, String> whole = book("the whole");
    whole.put("title", json("Dune Messiah"));
    DocumentChange replayed = BookDocuments.change(plan, "1", stamp + 1, whole, "title");
    replayed.copyMayBeAhead = true;
    DocumentChange deleted = DocumentChange.deletion("2", stamp + 1);
    deleted.copyMayBeAhead = true;
    DocumentChange older = BookDocuments.change(plan, "3", stamp + 5, whole);
    older.copyMayBeAhead = true;
    assertThat(writer.write(List.of(replayed, deleted, older)).held())
        .as("held after the settled writes")
        .containsOnly(Map.entry("1", stamp + 4), Map.entry("2", stamp + 3));

    JsonNode one = document("1");
    assertThat(one.get("title").asText()).isEqualTo("Dune Messiah");
    assertThat(one.get("description").asText())
        .as("a field the replayed change did not name")
        .isEqualTo("the whole");
    assertThat(copied("1").version()).isEqualTo(stamp + 4);
    assertThat(copy.read(sql, List.of("2"))).as("document 2").isEmpty();
    assertThat(document("3").get("description").asText()).isEqualTo("a piece");
    assertThat(copied("3").version()).isEqualTo(6L << DocumentChange.RAISE_BITS);
  }

  @Test
  void anUpdateOfADocumentTheCopyDoesNotHoldInsertsItWhole() throws Exception {
    Map<String, String> book = book("short");
    write(BookDocuments.change(plan, "7", 3, book, "title"));

    assertThat(document("7").get("description").asText()).isEqualTo("short");
    assertThat(copied("7").version()).isEqualTo(3);
  }

  @Test
  void everyValueTypeComesBackAsTheJsonItWasWrittenAs() throws Exception {
    write(BookDocuments.change(plan, "1", 1, book("A desert planet.")));

    JsonNode doc = document("1");
    assertThat(doc.get("id").asLong()).isEqualTo(1);
    assertThat(doc.get("pages").asInt()).isEqualTo(412);
    assertThat(doc.get("price").decimalValue()).isEqualByComparingTo("12.5");
    assertThat(doc.get("published").asText()).isEqualTo("1965-08-01");
    assertThat(doc.get("updated_at").asText()).isEqualTo("2026-11-23T05:00:00.500Z");
    assertThat(doc.get("attributes")).isEqualTo(Json.mapper().readTree("{\"cover\": \"hard\"}"));
    assertThat(doc.get("tags")).isEqualTo(Json.mapper().readTree("[\"sf\", \"classic\"]"));
    assertThat(doc.get("publisher"))
        .isEqualTo(Json.mapper().readTree("{\"name\": \"Chilton\", \"country\": \"US\"}"));
    assertThat(doc.get("authors"))
        .isEqualTo(Json.mapper().readTree("[{\"name\": \"Frank Herbert\", \"born\": null}]"));
    assertThat(doc.get("keywords")).isEqualTo(Json.mapper().readTree("[\"spice\", \"worms\"]"));
    assertThat(doc.get("content_hash").asText())
        .isEqualTo(HexFormat.of().formatHex(copied("1").contentHash()));
    // Stored as the column types, not as text.
    assertThat(
            TestDatabases.strings(
                config,
                config.get(WeirOptions.POSTGRES_URL),
                "SELECT concat_ws('|', price, tags[2], updated_at = '2026-11-23T05:00:00.5Z',"
                    + " attributes->>'cover', jsonb_array_length(authors)) FROM "
                    + TABLE))
        .containsExactly("12.50|classic|t|hard|1");
  }

  @Test
  void theBackfillReadsSplitsOfEqualSizeTheirDocumentsAndTheirHashes() throws Exception {
    for (String id : List.of("10", "2", "3", "4", "5")) {
      write(BookDocuments.change(plan, id, 1, book("book " + id)));
    }

    List<String> starts = copy.splitStarts(sql, 2);

    assertThat(starts).containsExactly("10", "3", "5"); // bytewise order: "10" < "2"
    assertThat(copy.readRange(sql, "10", "3"))
        .extracting(CopiedDocument::id)
        .containsExactly("10", "2");
    assertThat(copy.readRange(sql, "5", null)).extracting(CopiedDocument::id).containsExactly("5");
    assertThat(copy.contentHashes(sql, "3", "5")).containsOnlyKeys("3", "4");
    assertThat(copy.contentHashes(sql, "3", "5").get("4")).isEqualTo(copied("4").contentHash());
    assertThat(Json.mapper().readTree(copied("2").source()).get("description").asText())
        .isEqualTo("book 2");
  }

  @Test
  void theRowsWrittenSinceAMarkAreTheOnlyOnesACatchUpReads() throws Exception {
    for (String id : List.of("1", "2", "3", "4")) {
      write(BookDocuments.change(plan, id, 1, book("book " + id)));
    }
    long mark = DocumentCopy.writeMark(sql);
    assertThat(copy.writtenSince(sql, mark)).isEmpty();

    write(BookDocuments.change(plan, "3", 2, book("book 3, revised"))); // a large value changed
    write(BookDocuments.change(plan, "5", 1, book("book 5"))); // a new document
    write(BookDocuments.change(plan, "1", 1, book("book 1"))); // unchanged: not written

    assertThat(copy.writtenSince(sql, mark)).containsExactly("3", "5");
    assertThat(copy.contentHashes(sql, List.of("3", "5", "9"))).containsOnlyKeys("3", "5");
    assertThat(copy.contentHashes(sql, List.of("3")).get("3")).isEqualTo(copied("3").contentHash());
  }

  @Test
  void aNewColumnOfTheDefinitionIsAddedAWideningAppliedAndAnotherTypeChangeRefused()
      throws Exception {
    write(BookDocuments.change(plan, "1", 1, book("A desert planet.")));
    assertThat(
            TestDatabases.strings(
                config,
                config.get(WeirOptions.POSTGRES_URL),
                "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = '"
                    + TABLE
                    + "'"))
        .containsExactly("fillfactor=75");

    LinkedHashMap<String, String> grown = BookDocuments.bookColumns();
    grown.put("isbn", "character varying(17)");
    DocumentPlan grownPlan = BookDocuments.plan("books", TABLE, grown);
    DocumentCopy grownCopy = new DocumentCopy(grownPlan);
    grownCopy.migrate(sql);

    assertThat(columnType("isbn")).isEqualTo("character varying(17)");
    assertThat(grownCopy.read(sql, List.of("1"))).hasSize(1);
    Map<String, String> book = book("A desert planet.");
    book.put("isbn", json("978-0441172719"));
    try (DocumentCopyStore grownWriter = grownCopy.store(PostgresConnectionProvider.open(config))) {
      grownWriter.write(List.of(BookDocuments.change(grownPlan, "1", 2, book, "isbn")));
    }
    JsonNode doc = Json.mapper().readTree(grownCopy.read(sql, List.of("1")).get(0).source());
    assertThat(doc.get("isbn").asText()).isEqualTo("978-0441172719");
    assertThat(doc.get("title").asText()).isEqualTo("Dune");

    // The source's integer widened to bigint: so is the copy's column, its values kept.
    LinkedHashMap<String, String> widened = BookDocuments.bookColumns();
    widened.put("pages", "bigint");
    new DocumentCopy(BookDocuments.plan("books", TABLE, widened)).migrate(sql);
    assertThat(columnType("pages")).isEqualTo("bigint");
    assertThat(grownCopy.read(sql, List.of("1"))).hasSize(1);

    LinkedHashMap<String, String> retyped = BookDocuments.bookColumns();
    retyped.put("pages", "text");
    DocumentCopy retypedCopy = new DocumentCopy(BookDocuments.plan("books", TABLE, retyped));
    assertThatThrownBy(() -> retypedCopy.migrate(sql))
        .hasMessageContaining(TABLE)
        .hasMessageContaining("column pages of type bigint")
        .hasMessageContaining("text");
    assertThat(columnType("pages")).isEqualTo("bigint");
  }

  /**
   * A batch holding rows PostgreSQL refuses: the others are written, each refused one comes back
   * with why; once the source's column is wider, a value that only it takes widens the copy's
   * column and is written.
   */
  @Test
  void aBatchsRefusedRowsComeBackWithWhyTheOthersAreWrittenAndAWidenedSourceIsFollowed()
      throws Exception {
    sql.createStatement()
        .execute("ALTER TABLE " + TABLE + " ADD CONSTRAINT not_banned CHECK (title <> 'Banned')");
    List<DocumentChange> batch = new ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      Map<String, String> book = book("book " + i);
      if (i == 3) {
        book.put("pages", "3000000000");
      } else if (i == 6) {
        book.put("title", json("Banned"));
      }
      batch.add(BookDocuments.change(plan, Integer.toString(i), 1, book));
    }
    CopyWrite written = writer.write(batch);

    assertThat(written.held()).containsOnlyKeys("1", "2", "4", "5", "7", "8");
    assertThat(copy.count(sql)).isEqualTo(6);
    assertThat(written.refused()).extracting(r -> r.change().id).containsExactly("3", "6");
    assertThat(written.refused().get(0).reason())
        .startsWith("PostgreSQL refused document '3' (version 1) in the copy table " + TABLE)
        .contains("ERROR: value \"3000000000\" is out of range for type integer")
        .contains("in column pages (integer)");
    assertThat(written.refused().get(1).reason())
        .contains("'6'", "violates check constraint \"not_banned\"");
    assertThat(Json.mapper().readTree(written.refused().get(0).document()).get("pages").asLong())
        .isEqualTo(3_000_000_000L);

    LinkedHashMap<String, String> widened = BookDocuments.bookColumns();
    widened.put("pages", "bigint");
    SourceCatalog source =
        (schema, table) ->
            Optional.of(TableInfo.of(schema, table, widened, List.of("id"), List.of()));
    try (DocumentCopyStore following =
        copy.store(PostgresConnectionProvider.open(config), source)) {
      CopyWrite again = following.write(List.of(batch.get(2), batch.get(5)));
      assertThat(again.held()).containsOnlyKeys("3");
      assertThat(again.refused()).extracting(r -> r.change().id).containsExactly("6");
    }
    assertThat(columnType("pages")).isEqualTo("bigint");
    assertThat(Json.mapper().readTree(copied("3").source()).get("pages").asLong())
        .isEqualTo(3_000_000_000L);
  }

  private static Map<String, String> book(String description) {
    return BookDocuments.values(description);
  }

  private void write(DocumentChange change) throws Exception {
    writer.write(List.of(change));
  }

  private CopiedDocument copied(String id) throws Exception {
    return copy.read(sql, List.of(id)).get(0);
  }

  private JsonNode document(String id) throws Exception {
    return Json.mapper().readTree(copied(id).source());
  }

  private String columnType(String column) throws Exception {
    return TestDatabases.strings(
            config,
            config.get(WeirOptions.POSTGRES_URL),
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '"
                + TABLE
                + "'::regclass AND attname = '"
                + column
                + "'")
        .get(0);
  }

  private static String json(String text) {
    return BookDocuments.json(text);
  }

  /** Letters PostgreSQL cannot compress: the value is stored out of line, in TOAST chunks. */
  private static String randomLetters(int n, long seed) {
    Random random = new Random(seed);
    StringBuilder s = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      s.append((char) ('a' + random.nextInt(26)));
    }
    return s.toString();
  }
}
