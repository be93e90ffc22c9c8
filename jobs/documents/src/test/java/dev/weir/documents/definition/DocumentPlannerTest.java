package dev.weir.documents.definition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.documents.definition.TableInfo.ForeignKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A definition read as PGSync writes it and resolved against a catalog: keys and foreign keys from
 * the catalog when the file leaves them out, link tables as nodes of their own, and every problem
 * an error that names the node.
 */
class DocumentPlannerTest {

  /** PGSync's book example (examples/book/schema.json), its plugins left out. */
  private static final String PGSYNC_BOOK =
      """
      [{"database": "book", "index": "book", "setting": {}, "plugins": [],
        "nodes": [{"table": "book", "columns": ["isbn", "title"],
          "transform": {"rename": {"isbn": "book_isbn"}},
          "children": [
            {"table": "publisher", "columns": ["name"],
             "relationship": {"variant": "object", "type": "one_to_one"}},
            {"table": "review", "label": "reviews",
             "relationship": {"variant": "object", "type": "one_to_many"}},
            {"table": "author", "label": "authors", "columns": ["name"],
             "relationship": {"type": "one_to_many", "variant": "scalar",
                              "through_tables": ["book_author"]}}]}]}]
      """;

  private final Map<String, TableInfo> tables = new LinkedHashMap<>();

  DocumentPlannerTest() {
    table(
        "book",
        Map.of("isbn", "text", "title", "text", "publisher_id", "text"),
        List.of("isbn"),
        fk("publisher_id", "publisher", "id"));
    table("publisher", Map.of("id", "text", "name", "text"), List.of("id"));
    table(
        "review",
        Map.of("id", "uuid", "book_isbn", "text", "stars", "integer"),
        List.of("id"),
        fk("book_isbn", "book", "isbn"));
    table("author", Map.of("id", "text", "name", "text"), List.of("id"));
    table(
        "book_author",
        Map.of("book_isbn", "text", "author_id", "text"),
        List.of("book_isbn", "author_id"),
        fk("book_isbn", "book", "isbn"),
        fk("author_id", "author", "id"));
    table(
        "category",
        Map.of("id", "bigint", "name", "text", "parent_id", "bigint"),
        List.of("id"),
        fk("parent_id", "category", "id"));
    table(
        "edition",
        Map.of("id", "text", "isbn", "text", "original_isbn", "text"),
        List.of("id"),
        fk("isbn", "book", "isbn"),
        fk("original_isbn", "book", "isbn"));
    table("note", Map.of("text", "text"), List.of());
  }

  @Test
  void pgsyncsBookExampleResolvesWithKeysAndForeignKeysFromTheCatalog() {
    DocumentPlan plan = plan(PGSYNC_BOOK);
    assertThat(plan.copyTable()).isEqualTo("book_document");
    DocumentPlan.Node book = plan.root();
    assertThat(book.keyColumns()).containsExactly("isbn");
    assertThat(book.fields())
        .extracting(DocumentPlan.Field::name)
        .containsExactly("book_isbn", "title");

    DocumentPlan.Node publisher = plan.node(book.children().get(0));
    assertThat(publisher.parentColumns())
        .as("the foreign key on the parent side")
        .containsExactly("publisher_id");
    assertThat(publisher.childColumns()).containsExactly("id");

    DocumentPlan.Node reviews = plan.node(book.children().get(1));
    assertThat(reviews.parentColumns()).containsExactly("isbn");
    assertThat(reviews.childColumns())
        .as("the foreign key on the child side")
        .containsExactly("book_isbn");
    assertThat(reviews.fields()).as("no columns: all of them").hasSize(3);
    assertThat(reviews.many()).isTrue();

    DocumentPlan.Node link = plan.node(book.children().get(2));
    assertThat(link.link()).isTrue();
    assertThat(link.keyColumns()).containsExactly("book_isbn", "author_id");
    assertThat(link.parentColumns()).containsExactly("isbn");
    assertThat(link.childColumns()).containsExactly("book_isbn");
    DocumentPlan.Node authors = plan.node(link.children().get(0));
    assertThat(authors.label()).isEqualTo("authors");
    assertThat(authors.scalar()).isTrue();
    assertThat(authors.parentColumns()).containsExactly("author_id");
    assertThat(authors.childColumns()).containsExactly("id");
    assertThat(plan.documentFields())
        .extracting(DocumentPlan.DocumentField::name)
        .containsExactly("book_isbn", "title", "publisher", "reviews", "authors");
  }

  /**
   * A snapshot reads every table before the tables of its parent nodes, the root last: then the
   * join writes each document once, complete. A second document on the same tables with the parent
   * and child the other way round makes a cycle, broken deepest first; a tree of a table joined to
   * itself is one table.
   */
  @Test
  void aSnapshotReadsEveryTableBeforeItsParents() {
    DocumentPlan books = plan(PGSYNC_BOOK);
    List<String> tables =
        List.of(
            "public.book",
            "public.publisher",
            "public.review",
            "public.book_author",
            "public.author");

    assertThat(SnapshotOrder.childrenFirst(List.of(books), tables))
        .containsExactly(
            "public.author",
            "public.book_author",
            "public.publisher",
            "public.review",
            "public.book");

    DocumentPlan reviews =
        plan(
            """
            [{"database": "book", "index": "reviews",
              "nodes": [{"table": "review", "columns": ["id", "stars"],
                "children": [
                  {"table": "book", "columns": ["title"],
                   "relationship": {"variant": "object", "type": "one_to_one"},
                   "children": [
                     {"table": "publisher", "columns": ["name"],
                      "relationship": {"variant": "object", "type": "one_to_one"}}]}]}]}]
            """);
    assertThat(SnapshotOrder.childrenFirst(List.of(books, reviews), tables))
        .as("book and review are each other's parent: broken by depth, then by name")
        .containsExactly(
            "public.author",
            "public.publisher",
            "public.book_author",
            "public.book",
            "public.review");
  }

  @Test
  void aTableJoinedToItselfNeedsItsForeignKeyNamed() {
    assertThatThrownBy(
            () ->
                plan(
                    root(
                        "category",
                        "[\"name\"]",
                        child("category", "parent", "one_to_one", "object", ""))))
        .hasMessageContaining("node 'category.parent'")
        .hasMessageContaining("a cycle");
    DocumentPlan plan =
        plan(
            root(
                "category",
                "[\"name\"]",
                child(
                    "category",
                    "parent",
                    "one_to_one",
                    "object",
                    ", \"foreign_key\": {\"parent\": [\"parent_id\"], \"child\": [\"id\"]}")));
    assertThat(plan.node(1).parentColumns()).containsExactly("parent_id");
  }

  @Test
  void everyProblemNamesTheNode() {
    assertError(root("shelf", "[]", ""), "node 'shelf': table public.shelf does not exist");
    assertError(
        root("book", "[\"titel\"]", ""),
        "node 'book': columns names 'titel', which is not a column of public.book");
    assertError(
        root("book", "[\"title\"]", child("author", "authors", "one_to_many", "object", "")),
        "node 'book.authors': no foreign key joins public.author to its parent public.book");
    assertError(
        root("book", "[\"title\"]", child("edition", "editions", "one_to_many", "object", "")),
        "node 'book.editions': the relationship is ambiguous, 2 foreign keys");
    assertError(
        root(
            "book",
            "[\"title\"]",
            child("publisher", "publisher", "one_to_one", "scalar", "")
                .replace("[\"name\"]", "[\"id\", \"name\"]")),
        "node 'book.publisher': a scalar variant takes exactly one column, not 2");
    assertError(root("note", "[]", ""), "node 'note': table public.note has no primary key");
    assertError(
        root(
            "book",
            "[\"title\", \"publisher_id\"]",
            child("publisher", "title", "one_to_one", "object", "")),
        "node 'book.title': its label 'title' is also a field of book");
  }

  @Test
  void whatWeirDoesNotReadIsRefusedNotIgnored() {
    assertThatThrownBy(
            () ->
                DefinitionFile.parse(
                    "[{\"database\": \"d\", \"index\": \"i\", \"plugins\": [\"Hero\"],"
                        + " \"nodes\": {\"table\": \"book\"}}]"))
        .hasMessageContaining(
            "document 'i': 'plugins' is not something weir reads: PGSync's plugins, Python code"
                + " that weir cannot run");
    assertThatThrownBy(
            () ->
                DefinitionFile.parse(
                    "[{\"database\": \"d\", \"index\": \"i\", \"nodes\": {\"table\": \"book\","
                        + " \"children\": [{\"table\": \"review\"}]}}]"))
        .hasMessageContaining("node 'book.review': a child needs a 'relationship'");
    assertThatThrownBy(() -> DefinitionFile.parse("{\"nodes\": {}}"))
        .hasMessageContaining("a definition is a list of documents");
  }

  @Test
  void aForeignKeysParentColumnIsReportedAtTheChildThatNamesIt() {
    assertError(
        root(
            "book",
            "[\"title\"]",
            child(
                "publisher",
                "publisher",
                "one_to_one",
                "object",
                ", \"foreign_key\": {\"parent\": [\"publisher\"], \"child\": [\"id\"]}")),
        "node 'book.publisher': foreign_key.parent names 'publisher', which is not a column of"
            + " public.book");
    assertError(
        root(
            "book",
            "[\"title\"]",
            child(
                "publisher",
                "publisher",
                "one_to_one",
                "object",
                ", \"foreign_key\": {\"parent\": [\"publisher_id\"], \"child\": [\"pid\"]}")),
        "node 'book.publisher': foreign_key.child names 'pid', which is not a column of"
            + " public.publisher");
  }

  @Test
  void aJoinOfColumnsOfDifferentTypesIsRefusedNamingBoth() {
    assertError(
        root(
            "book",
            "[\"title\"]",
            child(
                    "review",
                    "reviews",
                    "one_to_many",
                    "object",
                    ", \"foreign_key\": {\"parent\": [\"isbn\"], \"child\": [\"stars\"]}")
                .replace("[\"name\"]", "[\"stars\"]")),
        "node 'book.reviews': the join compares public.book.isbn (text) with public.review.stars"
            + " (integer)");
    String price =
        """
        {"table": "prices", "label": "price", "columns": ["amount"], "primary_key": ["isbn"],
         "relationship": {"type": "one_to_one", "variant": "object",
                          "foreign_key": {"parent": ["isbn"], "child": ["isbn"]}},
         "weir": {"topic": "pricing.events", "version": "version",
                  "types": {"isbn": "%s", "amount": "numeric"}}}
        """;
    assertError(
        root("book", "[\"title\"]", price.formatted("bigint")),
        "node 'book.price': the join compares public.book.isbn (text) with"
            + " topic.pricing.events.isbn (bigint)");
    assertThat(plan(root("book", "[\"title\"]", price.formatted("character(13)"))).nodes())
        .as("text and char(n) are both compared as strings")
        .hasSize(2);
  }

  @Test
  void nodesReadingOneTopicAgreeOnItsVersionAndEventSchema() {
    String node =
        """
        {"table": "%s", "label": "%s", "columns": ["%s"], "primary_key": ["isbn"],
         "relationship": {"type": "one_to_one", "variant": "scalar",
                          "foreign_key": {"parent": ["isbn"], "child": ["isbn"]}},
         "weir": {"topic": "pricing.events", "version": "version", %s
                  "types": {"isbn": "text", "amount": "numeric", "currency": "text"}}}
        """;
    String schema = "\"event_schema\": \"pricing.events\",";
    DocumentPlan agreeing =
        plan(
            root(
                "book",
                "[\"title\"]",
                node.formatted("price", "price", "amount", schema)
                    + ", "
                    + node.formatted("currency", "currency", "currency", schema)));
    assertThat(agreeing.sources().get("topic:pricing.events").eventSchema())
        .isEqualTo("pricing.events");
    assertError(
        root(
            "book",
            "[\"title\"]",
            node.formatted("price", "price", "amount", schema)
                + ", "
                + node.formatted("currency", "currency", "currency", "")),
        "node 'book.currency': another node reads topic pricing.events with another"
            + " weir.version or weir.event_schema: they must agree");
  }

  @Test
  void aPathsParentColumnsMatchTheKey() {
    assertError(
        root(
            "book",
            "[\"title\"]",
            """
            {"table": "category", "columns": ["name"],
             "relationship": {"type": "one_to_one", "variant": "scalar",
                              "foreign_key": {"parent": ["title"], "child": ["name"]}},
             "weir": {"path": {"parent": ["parent_id", "name"]}}}
            """),
        "node 'book.category': weir.path.parent names 2 columns, the key of public.category 1");
    assertError(
        root(
            "book",
            "[\"title\"]",
            """
            {"table": "category", "columns": ["name"],
             "relationship": {"type": "one_to_one", "variant": "scalar",
                              "foreign_key": {"parent": ["title"], "child": ["name"]}},
             "weir": {"path": {"parent": ["name"]}}}
            """),
        "node 'book.category': the join compares public.category.name (text) with"
            + " public.category.id (bigint)");
  }

  // --- helpers

  private void assertError(String definition, String message) {
    assertThatThrownBy(() -> plan(definition)).hasMessageContaining(message);
  }

  private static String root(String table, String columns, String children) {
    return "[{\"database\": \"library\", \"index\": \"books\", \"nodes\": {\"table\": \""
        + table
        + "\", \"columns\": "
        + columns
        + (children.isEmpty() ? "" : ", \"children\": [" + children + "]")
        + "}}]";
  }

  private static String child(
      String table, String label, String type, String variant, String more) {
    return "{\"table\": \""
        + table
        + "\", \"label\": \""
        + label
        + "\", \"columns\": [\"name\"], \"relationship\": {\"type\": \""
        + type
        + "\", \"variant\": \""
        + variant
        + "\""
        + more
        + "}}";
  }

  private DocumentPlan plan(String definition) {
    return DocumentPlanner.plan(
        DefinitionFile.parse(definition).get(0),
        (schema, table) -> Optional.ofNullable(tables.get(table)));
  }

  private void table(
      String name, Map<String, String> columns, List<String> key, ForeignKey... fks) {
    tables.put(name, TableInfo.of("public", name, new LinkedHashMap<>(columns), key, List.of(fks)));
  }

  private static ForeignKey fk(String column, String table, String referenced) {
    return new ForeignKey(List.of(column), "public", table, List.of(referenced));
  }
}
