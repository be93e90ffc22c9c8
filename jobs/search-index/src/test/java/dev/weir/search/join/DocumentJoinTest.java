package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The declared join's operators together ({@link JoinSimulator}: channels delivered in a random
 * order, as Flink may), checked against the plain join of the same tables ({@link ReferenceJoin})
 * once everything is delivered.
 */
class DocumentJoinTest {

  private final DocumentPlan plan = LibraryPlan.plan();
  private final ReferenceJoin db = new ReferenceJoin(plan);
  private JoinSimulator join;
  private long lsn = 1000;

  @AfterEach
  void close() throws Exception {
    if (join != null) {
      join.close();
    }
  }

  @Test
  void aSnapshotArrivingInAnyOrderGivesTheJoinedDocuments() throws Exception {
    start(1);
    library();
    assertConverged();
    JsonNode book = document("b1");
    assertThat(book.get("publisher").get("name").asText()).isEqualTo("Penguin");
    assertThat(book.get("authors").get(0).get("city").get("country").get("continent").asText())
        .isEqualTo("Europe");
    assertThat(book.get("subjects").toString()).isEqualTo("[\"Fiction\",\"History\"]");
  }

  @Test
  void aParentSideRowRenamedReachesEveryDocumentThatNamesIt() throws Exception {
    start(2);
    library();
    join.runUntilQuiet();
    int before = join.emitted().size();
    change("public.publisher", "id", "p1", "name", "Penguin Books");
    assertConverged();
    assertThat(document("b1").get("publisher").get("name").asText()).isEqualTo("Penguin Books");
    assertThat(document("b2").get("publisher").get("name").asText()).isEqualTo("Penguin Books");
    assertThat(join.emitted().size() - before).as("documents written").isEqualTo(2);
  }

  @Test
  void aRowThreeLevelsDownRenamedReachesEveryBookOfItsAuthors() throws Exception {
    start(3);
    library();
    change("public.continent", "id", "eu", "name", "Europa");
    assertConverged();
    assertThat(
            document("b1")
                .get("authors")
                .get(0)
                .get("city")
                .get("country")
                .get("continent")
                .asText())
        .isEqualTo("Europa");
  }

  @Test
  void aForeignKeyThatMovesAChildTakesItFromOneDocumentToTheOther() throws Exception {
    start(4);
    library();
    change("public.review", "id", "r1", "book_isbn", "b2", "stars", 5);
    assertConverged();
    assertThat(document("b1").get("reviews")).isEmpty();
    assertThat(document("b2").get("reviews").toString()).contains("\"r1\"");
  }

  @Test
  void linkRowsAddedAndRemovedAddAndRemoveTheChild() throws Exception {
    start(5);
    library();
    change("public.book_author", "book_isbn", "b2", "author_id", "a1");
    delete("public.book_subject", "book_isbn", "b1", "subject_id", 1);
    assertConverged();
    assertThat(document("b2").get("authors").toString()).contains("Orwell");
    assertThat(document("b1").get("subjects").toString()).isEqualTo("[\"History\"]");
  }

  @Test
  void aParentDeletedWhileChildrenRemainAndCreatedAgain() throws Exception {
    start(6);
    library();
    delete("public.book", "isbn", "b1");
    assertConverged();
    assertThat(join.documents()).doesNotContainKey("b1");
    change("public.book", "isbn", "b1", "title", "1984 (new edition)", "publisher_id", "p1");
    assertConverged();
    assertThat(document("b1").get("reviews").toString()).contains("\"r1\"");
  }

  @Test
  void aTruncatedChildTableLeavesEveryDocumentAndItsNewRowsJoinAgain() throws Exception {
    start(7);
    library();
    truncate("public.review");
    truncate("public.book_author");
    assertConverged();
    assertThat(document("b1").path("reviews")).isEmpty();
    assertThat(document("b1").path("authors")).isEmpty();
    assertThat(document("b1").get("subjects").toString()).contains("Fiction");
    change("public.review", "id", "r2", "book_isbn", "b1", "stars", 5);
    change("public.book_author", "book_isbn", "b1", "author_id", "a2");
    assertConverged();
    assertThat(document("b1").get("reviews").toString()).contains("\"r2\"");
    assertThat(document("b1").get("authors").toString()).contains("Huxley");
  }

  @Test
  void aTruncatedRootDeletesEveryDocumentAndARowWrittenBeforeItThatArrivesLateStaysOut()
      throws Exception {
    start(8);
    library();
    long beforeTruncate = ++lsn;
    truncate("public.book");
    assertConverged();
    assertThat(join.documents()).isEmpty();
    // A row written before the truncate, read after it (another partition of the topic).
    SourceRow late = new ReferenceJoin(plan).apply("public.book", row("isbn", "b9"), false, 0);
    late.lsn = beforeTruncate;
    join.send(late);
    change("public.book", "isbn", "b1", "title", "1984", "publisher_id", "p1");
    assertConverged();
    assertThat(join.documents()).containsOnlyKeys("b1");
    assertThat(document("b1").get("reviews").toString()).contains("\"r1\"");
  }

  /** The deployed state backend: the truncate walks the keys RocksDB holds, deleting some. */
  @Test
  void aTruncateDeletesTheRowsOfItsTableThatRocksDbHolds() throws Exception {
    join = new JoinSimulator(plan, 9, new EmbeddedRocksDBStateBackend(true));
    library();
    truncate("public.author");
    truncate("public.book_subject");
    assertConverged();
    assertThat(document("b1").path("subjects")).isEmpty();
    assertThat(document("b2").path("authors")).isEmpty();
    assertThat(document("b1").get("reviews").toString()).contains("\"r1\"");
  }

  @Test
  void stateHoldsTheLiveRowsOnlyAndTombstonesExpire() throws Exception {
    start(12);
    library();
    Random random = new Random(12);
    for (int i = 0; i < 400; i++) {
      randomChange(random);
    }
    assertConverged();
    long liveRows = plan.sources().keySet().stream().mapToLong(s -> db.rows(s).size()).sum();
    Map<String, Long> live = join.stateKeys();
    // One entry per live row; the edges hold a child and a parent per link (at most).
    assertThat(live.get("tracked")).isEqualTo(liveRows);
    assertThat(live.getOrDefault("children", 0L) + live.getOrDefault("parents", 0L))
        .isLessThanOrEqualTo(4 * liveRows);

    for (String source : plan.sources().keySet()) {
      for (ObjectNode row : List.copyOf(db.rows(source).values())) {
        lastSent = db.apply(source, row, true, ++lsn);
        join.send(lastSent);
      }
    }
    assertConverged();
    assertThat(join.documents()).isEmpty();
    // Nothing is left but the tombstones, which expire: of the rows, the documents and the
    // assembled rows (a label sent before the deletion arrived after it: seen left for good).
    var tombstones = new String[] {"tombstone", "deleted-version", "deleted-at"};
    assertThat(join.stateKeys()).containsOnlyKeys(tombstones);

    join.restoreFromSnapshot(JoinSimulator.TOMBSTONE_TTL.minusHours(1));
    assertThat(join.stateKeys()).containsOnlyKeys(tombstones);
    join.restoreFromSnapshot(JoinSimulator.TOMBSTONE_TTL.plusHours(1));
    assertThat(join.stateKeys()).isEmpty();

    // And the join still works after the restore.
    change("public.publisher", "id", "p1", "name", "Penguin");
    change("public.book", "isbn", "b1", "title", "1984", "publisher_id", "p1");
    assertConverged();
    assertThat(document("b1").get("publisher").get("name").asText()).isEqualTo("Penguin");
  }

  /**
   * A change without an event time of its own (a topic's event, another writer's change event
   * without a commit time) is timed by the source, not by the join: it is applied at once.
   */
  @Test
  void changesWithoutAnEventTimeOfTheirOwnAreApplied() throws Exception {
    start(8);
    library();
    assertConverged();
    join.sendWithoutTime(db.apply("public.subject", row("id", 2, "name", "No time"), false, ++lsn));
    join.sendWithoutTime(
        db.apply(
            "public.book",
            row("isbn", "b2", "title", "Untimed", "publisher_id", "p1"),
            false,
            ++lsn));
    assertConverged();
    assertThat(document("b1").get("subjects").toString()).contains("No time");
    assertThat(document("b2").get("title").asText()).isEqualTo("Untimed");
  }

  @Test
  void aChildBeforeItsParentAndALinkBeforeBothSides() throws Exception {
    start(7);
    change("public.book_author", "book_isbn", "b9", "author_id", "a9");
    change("public.review", "id", "r9", "book_isbn", "b9", "stars", 1);
    change("public.author", "id", "a9", "name", "Austen", "city_id", "c9");
    change("public.book", "isbn", "b9", "title", "Emma", "publisher_id", "p9");
    assertConverged();
    change("public.publisher", "id", "p9", "name", "Murray");
    change("public.city", "id", "c9", "name", "Steventon", "country_id", "uk");
    assertConverged();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {11, 12, 13, 14, 15, 16, 17, 18})
  void randomChangesAtEveryLevelConvergeToTheJoin(long seed) throws Exception {
    start(seed);
    Random random = new Random(seed);
    for (int i = 0; i < 600; i++) {
      randomChange(random);
      if (i % 150 == 149) {
        assertConverged();
      }
    }
    assertConverged();
  }

  /**
   * The source's schemas change under the capture while rows change: an undeclared column added
   * (ignored), a declared column renamed and back (its table's changes dead-lettered meanwhile, the
   * documents keep the rows), a column widened past 32 bits (applied); truncates among them.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {51, 52, 53, 54})
  void randomChangesAcrossSourceSchemaChangesConvergeToTheJoin(long seed) throws Exception {
    start(seed);
    schemas = new SourceSchemas(plan);
    Random random = new Random(seed);
    for (int i = 0; i < 600; i++) {
      if (random.nextInt(25) == 0) {
        schemas.changeOne(random);
      }
      randomChange(random);
      if (i % 150 == 149) {
        assertConverged();
      }
    }
    assertConverged();
    assertThat(schemas.deadLetters()).as("changes refused for a renamed column").isPositive();
  }

  /**
   * A replay of the same changes (a new job reading every topic from the start) interleaved
   * otherwise ends on the same documents. Their versions may differ by what each run had to raise
   * (a change of one table overtaken by an older one of another): the copy keeps the version it
   * holds when the content is the same, so a replay changes nothing there or in the index.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {21, 22, 23, 24})
  void aReplayInAnotherOrderEndsOnTheSameDocuments(long seed) throws Exception {
    start(seed);
    List<SourceRow> input = randomChanges(new Random(seed), 600, 0);
    join.runUntilQuiet();
    Map<String, JsonNode> live = documents(join);
    try (JoinSimulator replay = new JoinSimulator(plan, seed + 1000)) {
      for (SourceRow row : input) {
        replay.send(row);
      }
      replay.runUntilQuiet();
      assertThat(documents(replay)).isEqualTo(live).isEqualTo(db.documents());
    }
  }

  /**
   * A new job reading every topic from the beginning, as Kafka keeps them (compacted: each row's
   * last change, deletions included), leaves the copy as the live run left it: each document and
   * its version. It writes a document only once every topic has been read up to the changes it
   * holds, so it passes through states the source held, at versions below the live run's, which the
   * copy refuses; and it ends on the content the copy holds, which it keeps with its version.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {32, 33, 34, 35, 36, 37, 38, 39})
  void aReplayOfTheCompactedTopicsLeavesEveryDocumentAndVersionAsItWas(long seed) throws Exception {
    start(seed);
    List<SourceRow> input = randomChanges(new Random(seed), 600, 40);
    join.runUntilQuiet();
    CopyRules copy = new CopyRules();
    join.emitted().forEach(copy::write);
    Map<String, String> live = copy.documents();
    try (JoinSimulator replay = new JoinSimulator(plan, seed + 1000)) {
      replay.readFirst("public.book");
      for (SourceRow row : compacted(input)) {
        replay.send(row);
      }
      replay.runUntilQuiet();
      assertThat(documents(replay)).isEqualTo(db.documents());
      replay.emitted().forEach(copy::write);
      assertThat(copy.documents()).isEqualTo(live);
    }
  }

  /**
   * A job restarted from a checkpoint during a snapshot (every row of one stamp), after it wrote
   * documents in pieces, raising their versions one by one: its replay may raise them less far, and
   * the copy, which kept those writes, must still end on the documents of the join.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {41, 42, 43, 44, 45, 46, 47, 48})
  void aRestartDuringASnapshotEndsOnTheJoinInTheCopy(long seed) throws Exception {
    start(seed);
    change("public.publisher", "id", "p0", "name", "Before");
    join.runUntilQuiet();
    CopyRules copy = new CopyRules();
    join.emitted().forEach(copy::write);
    var checkpoint = join.states();
    int written = join.emitted().size();

    List<SourceRow> snapshot = new ArrayList<>();
    long stamp = ++lsn;
    for (int b = 0; b < 6; b++) {
      snapshot.add(
          db.apply(
              "public.book",
              row("isbn", "b" + b, "publisher_id", "p" + b % 3, "title", "t" + b),
              false,
              stamp));
    }
    for (int i = 0; i < 30; i++) {
      String table = i % 2 == 0 ? "public.review" : "public.book_author";
      snapshot.add(
          i % 2 == 0
              ? db.apply(
                  table, row("id", "r" + i, "book_isbn", "b" + i % 6, "stars", i % 5), false, stamp)
              : db.apply(
                  table, row("book_isbn", "b" + i % 6, "author_id", "a" + i % 4), false, stamp));
    }
    for (int a = 0; a < 4; a++) {
      snapshot.add(
          db.apply(
              "public.author", row("id", "a" + a, "name", "w" + a, "city_id", "c0"), false, stamp));
    }
    snapshot.add(
        db.apply("public.city", row("id", "c0", "name", "Town", "country_id", "k0"), false, stamp));
    for (int p = 0; p < 3; p++) {
      snapshot.add(db.apply("public.publisher", row("id", "p" + p, "name", "P" + p), false, stamp));
    }
    // The live run reads most of the snapshot, writing documents in pieces, and stops.
    for (SourceRow row : snapshot.subList(0, snapshot.size() - 6)) {
      join.send(row);
      if (row.source.equals("public.review")) {
        join.runUntilQuiet();
      }
    }
    join.runUntilQuiet();
    join.emitted().stream().skip(written).forEach(copy::write);
    assertThat(join.emitted())
        .as("documents of a run that wrote all it restored")
        .noneMatch(d -> d.copyMayBeAhead);

    join.restartFrom(checkpoint);
    int replayed = join.emitted().size();
    for (SourceRow row : snapshot) {
      join.send(row);
    }
    join.runUntilQuiet();
    join.emitted().stream().skip(replayed).forEach(copy::write);
    assertThat(copy.objects(plan)).isEqualTo(db.documents());
  }

  /**
   * What Kafka keeps of the changes in a compacted topic per table: each row's last one, and the
   * table's last truncate, which comes first (its own partition, read before the others): the rows
   * written before it are still in the topic, and must stay out.
   */
  private List<SourceRow> compacted(List<SourceRow> changes) throws Exception {
    NodeRows nodeRows = new NodeRows(plan);
    Map<String, Integer> last = new HashMap<>();
    for (int i = 0; i < changes.size(); i++) {
      List<RowChange> rows = new ArrayList<>();
      nodeRows.flatMap(changes.get(i), collector(rows));
      last.put(changes.get(i).source + "/" + rows.get(0).key, i);
    }
    return last.values().stream()
        .sorted(
            Comparator.comparing((Integer i) -> !changes.get(i).truncated).thenComparing(i -> i))
        .map(changes::get)
        .toList();
  }

  private static <T> Collector<T> collector(List<T> into) {
    return new Collector<>() {
      @Override
      public void collect(T record) {
        into.add(record);
      }

      @Override
      public void close() {}
    };
  }

  /**
   * The copy's rules for what it takes ({@code DocumentCopyStore}): a document whose content it
   * holds changes nothing, whatever its version; other content only at a higher version; a deletion
   * at a higher version; one the copy may hold further is raised above a version of its stamp.
   */
  private static final class CopyRules {
    private final Map<String, DocumentChange> rows = new TreeMap<>();

    void write(DocumentChange d) {
      DocumentChange held = rows.get(d.id);
      if (d.copyMayBeAhead
          && held != null
          && held.version >= d.version
          && DocumentChange.stampOf(held.version) <= DocumentChange.stampOf(d.version)) {
        d.version = held.version + 1;
      }
      if (d.deleted) {
        if (held != null && held.version < d.version) {
          rows.remove(d.id);
        }
      } else if (held == null
          || (!Arrays.equals(held.contentHash, d.contentHash) && held.version < d.version)) {
        rows.put(d.id, d);
      }
    }

    /** Each document as a JSON object. */
    Map<String, JsonNode> objects(DocumentPlan plan) throws Exception {
      Map<String, JsonNode> docs = new TreeMap<>();
      for (var e : rows.entrySet()) {
        docs.put(e.getKey(), ReferenceJoin.asObject(plan, e.getValue()));
      }
      return docs;
    }

    /** Each document's content hash and version. */
    Map<String, String> documents() {
      Map<String, String> docs = new TreeMap<>();
      rows.forEach(
          (id, d) -> docs.put(id, HexFormat.of().formatHex(d.contentHash) + " @" + d.version));
      return docs;
    }
  }

  // --- the library ---

  private void library() throws Exception {
    change("public.continent", "id", "eu", "name", "Europe");
    change("public.country", "id", "uk", "name", "United Kingdom", "continent_id", "eu");
    change("public.city", "id", "c1", "name", "Motihari", "country_id", "uk");
    change("public.author", "id", "a1", "name", "Orwell", "city_id", "c1");
    change("public.author", "id", "a2", "name", "Huxley", "city_id", "c1");
    change("public.publisher", "id", "p1", "name", "Penguin");
    change("public.subject", "id", 1, "name", "Fiction");
    change("public.subject", "id", 2, "name", "History");
    change("public.book", "isbn", "b1", "title", "1984", "publisher_id", "p1");
    change("public.book", "isbn", "b2", "title", "Brave New World", "publisher_id", "p1");
    change("public.book_author", "book_isbn", "b1", "author_id", "a1");
    change("public.book_author", "book_isbn", "b2", "author_id", "a2");
    change("public.book_subject", "book_isbn", "b1", "subject_id", 1);
    change("public.book_subject", "book_isbn", "b1", "subject_id", 2);
    change("public.review", "id", "r1", "book_isbn", "b1", "stars", 4);
  }

  /** {@code n} random changes, delivered every {@code quietEvery} changes (0: never); as sent. */
  private List<SourceRow> randomChanges(Random random, int n, int quietEvery) throws Exception {
    List<SourceRow> sent = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      randomChange(random);
      sent.add(lastSent);
      if (quietEvery > 0 && i % quietEvery == quietEvery - 1) {
        join.runUntilQuiet();
      }
    }
    return sent;
  }

  private void randomChange(Random r) throws Exception {
    String b = "b" + r.nextInt(6);
    String a = "a" + r.nextInt(5);
    String c = "c" + r.nextInt(3);
    String k = "k" + r.nextInt(3);
    String p = "p" + r.nextInt(3);
    boolean delete = r.nextInt(5) == 0;
    String name = "n" + r.nextInt(1000);
    switch (r.nextInt(100) < 99 ? r.nextInt(10) : 10) {
      case 0 ->
          write(
              delete,
              "public.book",
              "isbn",
              b,
              "title",
              name,
              "publisher_id",
              r.nextInt(4) == 0 ? null : p);
      case 1 -> write(delete, "public.publisher", "id", p, "name", name);
      case 2 ->
          write(
              delete,
              "public.review",
              "id",
              "r" + r.nextInt(8),
              "book_isbn",
              b,
              "stars",
              r.nextInt(5));
      case 3 -> write(delete, "public.book_author", "book_isbn", b, "author_id", a);
      case 4 -> write(delete, "public.author", "id", a, "name", name, "city_id", c);
      case 5 -> write(delete, "public.city", "id", c, "name", name, "country_id", k);
      case 6 ->
          write(
              delete, "public.country", "id", k, "name", name, "continent_id", "e" + r.nextInt(2));
      case 7 -> write(delete, "public.continent", "id", "e" + r.nextInt(2), "name", name);
      case 8 -> write(delete, "public.book_subject", "book_isbn", b, "subject_id", r.nextInt(3));
      case 9 -> write(delete, "public.subject", "id", r.nextInt(3), "name", name);
      default -> truncate(TABLES.get(r.nextInt(TABLES.size())));
    }
  }

  private static final List<String> TABLES =
      List.of(
          "public.book",
          "public.publisher",
          "public.review",
          "public.book_author",
          "public.author",
          "public.city",
          "public.country",
          "public.continent",
          "public.book_subject",
          "public.subject");

  private void truncate(String table) throws Exception {
    lastSent = db.truncate(table, ++lsn);
    join.send(lastSent);
  }

  private void write(boolean delete, String table, Object... columnValues) throws Exception {
    if (delete) {
      delete(table, columnValues);
    } else {
      change(table, columnValues);
    }
  }

  private SourceRow lastSent;

  /** When set, each change goes through the capture's changing schemas; else straight in. */
  private SourceSchemas schemas;

  private void change(String table, Object... columnValues) throws Exception {
    send(table, row(columnValues), false);
  }

  private void delete(String table, Object... columnValues) throws Exception {
    send(table, row(columnValues), true);
  }

  private void send(String table, ObjectNode values, boolean delete) throws Exception {
    if (schemas == null) {
      lastSent = db.apply(table, values, delete, ++lsn);
    } else {
      SourceSchemas.Sent sent = schemas.send(table, values, delete, ++lsn);
      if (sent == null) {
        return;
      }
      db.apply(table, sent.values(), delete, lsn);
      lastSent = sent.row();
    }
    join.send(lastSent);
  }

  private static ObjectNode row(Object... columnValues) {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i < columnValues.length; i += 2) {
      Object v = columnValues[i + 1];
      if (v == null) {
        row.putNull((String) columnValues[i]);
      } else if (v instanceof Integer n) {
        row.put((String) columnValues[i], n);
      } else {
        row.put((String) columnValues[i], v.toString());
      }
    }
    return row;
  }

  private void start(long seed) throws Exception {
    join = new JoinSimulator(plan, seed);
  }

  private void assertConverged() throws Exception {
    join.runUntilQuiet();
    assertThat(documents(join)).isEqualTo(db.documents());
  }

  private Map<String, JsonNode> documents(JoinSimulator simulator) throws Exception {
    Map<String, JsonNode> docs = new TreeMap<>();
    for (var e : simulator.documents().entrySet()) {
      docs.put(e.getKey(), ReferenceJoin.asObject(plan, e.getValue()));
    }
    return docs;
  }

  private JsonNode document(String id) throws Exception {
    return ReferenceJoin.asObject(plan, join.documents().get(id));
  }
}
