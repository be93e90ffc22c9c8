package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.schema.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The join of a definition with row filters ({@code weir.where}) and PGSync's transforms ({@link
 * LibraryPlan#SHELF}): a row leaving its node's filter leaves its parent's field (or, at the root,
 * the index) and one coming back returns, without the source being read again; a change to one
 * source value changes exactly the fields it feeds. Checked against the plain join ({@link
 * ReferenceJoin}, the filters as a WHERE).
 */
class FilteredJoinTest {

  private final DocumentPlan plan = LibraryPlan.plan(LibraryPlan.SHELF);
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
  void transformsGiveTheFieldsTheirPgsyncNamesAndValues() throws Exception {
    start(1);
    shelf();
    assertConverged();
    assertThat(document("b1"))
        .isEqualTo(
            json(
                "{'isbn': 'b1', 'book_title': 'Nineteen Eighty Four', 'publisher_id': 'p1',"
                    + " 'language': 'en', 'label': 'b1: Nineteen Eighty Four',"
                    + " 'publisher': {'publisher_name': 'Penguin'},"
                    + " 'reviews': [{'id': 'r1', 'stars': 4}], 'authors': ['Orwell']}"));
  }

  @Test
  void aSoftDeletedRootLeavesTheIndexAndComesBackWhenRestored() throws Exception {
    start(2);
    shelf();
    assertConverged();
    int before = join.emitted().size();
    change(
        "book",
        "{'isbn': 'b1', 'title': 'Nineteen-Eighty-Four', 'publisher_id': 'p1',"
            + " 'info': {'lang': 'en'}, 'deleted_at': '2026-11-28T10:00:00Z'}");
    assertConverged();
    assertThat(join.documents()).doesNotContainKey("b1").containsKey("b2");
    List<DocumentChange> written = join.emitted().subList(before, join.emitted().size());
    assertThat(written).singleElement().satisfies(d -> assertThat(d.deleted).isTrue());

    // A child changed while its parent is filtered out is there when the parent comes back.
    change("review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': 5, 'status': 'featured'}");
    change(
        "book",
        "{'isbn': 'b1', 'title': 'Nineteen-Eighty-Four', 'publisher_id': 'p1',"
            + " 'info': {'lang': 'en'}, 'deleted_at': null}");
    assertConverged();
    assertThat(document("b1").get("reviews")).isEqualTo(json("[{'id': 'r1', 'stars': 5}]"));
  }

  @Test
  void aChildLeavingItsFilterLeavesItsParentsFieldAndComesBack() throws Exception {
    start(3);
    shelf();
    assertConverged();
    change("review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': 4, 'status': 'draft'}");
    change("author", "{'id': 'a2', 'name': 'Huxley', 'deleted_at': '2026-11-28T10:00:00Z'}");
    assertConverged();
    assertThat(document("b1").get("reviews")).isEmpty();
    assertThat(document("b2").get("authors")).isEmpty();

    // A null in the filter's column is not a match (SQL's unknown), a value again is.
    change("review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': null, 'status': 'published'}");
    change("author", "{'id': 'a2', 'name': 'Aldous Huxley', 'deleted_at': null}");
    assertConverged();
    assertThat(document("b1").get("reviews")).isEmpty();
    assertThat(document("b2").get("authors")).isEqualTo(json("['Aldous Huxley']"));
    change("review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': 2, 'status': 'published'}");
    assertConverged();
    assertThat(document("b1").get("reviews")).isEqualTo(json("[{'id': 'r1', 'stars': 2}]"));
  }

  /** The copy writes the fields a change names: a source value's change names those it feeds. */
  @Test
  void aChangeToOneSourceValueChangesExactlyTheFieldsItFeeds() throws Exception {
    start(4);
    shelf();
    assertConverged();
    String b1 = "{'isbn': 'b1', 'title': '1984', 'publisher_id': 'p1', 'info': %s}";
    assertThat(changedBy("book", b1.formatted("{'lang': 'en'}")))
        .containsExactly(Map.entry("b1", List.of("book_title", "label")));
    assertThat(changedBy("book", b1.formatted("{'lang': 'en', 'pages': 328}")))
        .as("a key of the json column outside the path")
        .isEmpty();
    assertThat(changedBy("book", b1.formatted("{'lang': 'en-GB', 'pages': 328}")))
        .containsExactly(Map.entry("b1", List.of("language")));
    assertThat(changedBy("review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': 4, 'status': 'x'}"))
        .containsExactly(Map.entry("b1", List.of("reviews")));
    assertThat(
            changedBy(
                "review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': 4, 'status': 'featured'}"))
        .containsExactly(Map.entry("b1", List.of("reviews")));
    assertThat(
            changedBy(
                "review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': 4, 'status': 'published'}"))
        .as("a column only the filter reads, the row still kept")
        .isEmpty();
    assertThat(changedBy("publisher", "{'id': 'p1', 'name': 'Penguin Books'}"))
        .containsExactly(
            Map.entry("b1", List.of("publisher")), Map.entry("b2", List.of("publisher")));
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {41, 42, 43, 44, 45, 46})
  void randomChangesThroughFiltersAndTransformsConvergeToTheJoin(long seed) throws Exception {
    start(seed);
    Random r = new Random(seed);
    for (int i = 0; i < 500; i++) {
      randomChange(r);
      if (i % 125 == 124) {
        assertConverged();
      }
    }
    assertConverged();
  }

  // --- the shelf ---

  private void shelf() throws Exception {
    change("publisher", "{'id': 'p1', 'name': 'Penguin'}");
    change("author", "{'id': 'a1', 'name': 'Orwell', 'deleted_at': null}");
    change("author", "{'id': 'a2', 'name': 'Huxley'}");
    change(
        "book",
        "{'isbn': 'b1', 'title': 'Nineteen-Eighty-Four', 'publisher_id': 'p1',"
            + " 'info': {'lang': 'en'}, 'deleted_at': null}");
    change(
        "book",
        "{'isbn': 'b2', 'title': 'Brave-New-World', 'publisher_id': 'p1',"
            + " 'info': {'lang': 'en'}}");
    change("book_author", "{'book_isbn': 'b1', 'author_id': 'a1'}");
    change("book_author", "{'book_isbn': 'b2', 'author_id': 'a2'}");
    change("review", "{'id': 'r1', 'book_isbn': 'b1', 'stars': 4, 'status': 'published'}");
    change("review", "{'id': 'r2', 'book_isbn': 'b1', 'stars': 1, 'status': 'published'}");
  }

  private void randomChange(Random r) throws Exception {
    String b = "b" + r.nextInt(5);
    String a = "a" + r.nextInt(4);
    boolean delete = r.nextInt(6) == 0;
    String deletedAt = r.nextInt(3) == 0 ? "'2026-11-2" + r.nextInt(9) + "T10:00:00Z'" : "null";
    String name = "'n-" + r.nextInt(100) + "'";
    String row =
        switch (r.nextInt(6)) {
          case 0 -> {
            String info =
                switch (r.nextInt(4)) {
                  case 0 -> "null";
                  case 1 -> "{'pages': 3}";
                  case 2 -> "'a text'";
                  default -> "{'lang': '" + (r.nextBoolean() ? "en" : "fr") + "'}";
                };
            yield "book:{'isbn': '%s', 'title': %s, 'publisher_id': 'p%d', 'info': %s,"
                    .formatted(b, name, r.nextInt(2), info)
                + " 'deleted_at': "
                + deletedAt
                + "}";
          }
          case 1 -> "publisher:{'id': 'p%d', 'name': %s}".formatted(r.nextInt(2), name);
          case 2 ->
              "review:{'id': 'r%d', 'book_isbn': '%s', 'stars': %s, 'status': '%s'}"
                  .formatted(
                      r.nextInt(6),
                      b,
                      r.nextInt(5) == 0 ? "null" : String.valueOf(r.nextInt(5)),
                      List.of("published", "featured", "draft").get(r.nextInt(3)));
          case 3 -> "book_author:{'book_isbn': '%s', 'author_id': '%s'}".formatted(b, a);
          default ->
              "author:{'id': '%s', 'name': %s, 'deleted_at': %s}".formatted(a, name, deletedAt);
        };
    int colon = row.indexOf(':');
    send(row.substring(0, colon), row.substring(colon + 1), delete);
  }

  /** The documents a change rewrote, each with the fields it names to the copy. */
  private Map<String, List<String>> changedBy(String table, String row) throws Exception {
    int before = join.emitted().size();
    change(table, row);
    assertConverged();
    Map<String, List<String>> changed = new TreeMap<>();
    for (DocumentChange d : join.emitted().subList(before, join.emitted().size())) {
      List<String> fields = changed.computeIfAbsent(d.id, id -> new ArrayList<>());
      for (int i = 0; i < d.changed.length; i++) {
        if (d.changed[i]) {
          fields.add(plan.documentFields().get(i).name());
        }
      }
    }
    return changed;
  }

  private void change(String table, String row) throws Exception {
    send(table, row, false);
  }

  private void send(String table, String row, boolean delete) throws Exception {
    join.send(db.apply("public." + table, (ObjectNode) json(row), delete, ++lsn));
  }

  private static JsonNode json(String singleQuoted) throws Exception {
    return Json.mapper().readTree(singleQuoted.replace('\'', '"'));
  }

  private void start(long seed) throws Exception {
    join = new JoinSimulator(plan, seed);
  }

  private void assertConverged() throws Exception {
    join.runUntilQuiet();
    Map<String, JsonNode> docs = new TreeMap<>();
    for (var e : join.documents().entrySet()) {
      docs.put(e.getKey(), ReferenceJoin.asObject(plan, e.getValue()));
    }
    assertThat(docs).isEqualTo(db.documents());
  }

  private JsonNode document(String id) throws Exception {
    return ReferenceJoin.asObject(plan, join.documents().get(id));
  }
}
