package dev.weir.search.join;

import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A library's books as a declared document, over an in-memory catalog: a publisher (one_to_one, the
 * foreign key on the book), reviews (one_to_many), authors through book_author with their city,
 * country and continent (four levels down), subjects as scalars through book_subject. Text keys,
 * and a composite one on the link tables.
 */
final class LibraryPlan {

  private LibraryPlan() {}

  static final String DEFINITION =
      """
      [{"database": "library", "index": "books", "nodes": {
        "table": "book", "columns": ["isbn", "title", "publisher_id"],
        "children": [
          {"table": "publisher", "columns": ["name"],
           "relationship": {"type": "one_to_one", "variant": "object"}},
          {"table": "review", "label": "reviews", "columns": ["id", "stars"],
           "relationship": {"type": "one_to_many", "variant": "object"}},
          {"table": "author", "label": "authors", "columns": ["name"],
           "relationship": {"type": "one_to_many", "variant": "object",
                            "through_tables": ["book_author"]},
           "children": [
             {"table": "city", "columns": ["name"],
              "relationship": {"type": "one_to_one", "variant": "object"},
              "children": [
                {"table": "country", "columns": ["name"],
                 "relationship": {"type": "one_to_one", "variant": "object"},
                 "children": [
                   {"table": "continent", "columns": ["name"],
                    "relationship": {"type": "one_to_one", "variant": "scalar"}}]}]}]},
          {"table": "subject", "label": "subjects", "columns": ["name"],
           "relationship": {"type": "one_to_many", "variant": "scalar",
                            "through_tables": ["book_subject"]}}]}}]
      """;

  /**
   * The same tables as a shelf of the books on sale: soft-deleted books, authors and unpublished
   * reviews filtered out ({@code weir.where}), fields renamed, replaced, concatenated and read at a
   * JSON path (PGSync's transforms).
   */
  static final String SHELF =
      """
      [{"database": "library", "index": "shelf", "nodes": {
        "table": "book", "columns": ["isbn", "title", "publisher_id", "info->lang"],
        "weir": {"where": "deleted_at IS NULL"},
        "transform": {"rename": {"title": "book_title", "info_lang": "language"},
                      "replace": {"title": {"-": " "}},
                      "concat": {"columns": ["isbn", "book_title"], "destination": "label",
                                 "delimiter": ": "}},
        "children": [
          {"table": "publisher", "columns": ["name"],
           "relationship": {"type": "one_to_one", "variant": "object"},
           "transform": {"rename": {"name": "publisher_name"}}},
          {"table": "review", "label": "reviews", "columns": ["id", "stars"],
           "weir": {"where": "stars >= 2 AND status IN ('published', 'featured')"},
           "relationship": {"type": "one_to_many", "variant": "object"}},
          {"table": "author", "label": "authors", "columns": ["name"],
           "weir": {"where": "NOT (deleted_at IS NOT NULL)"},
           "relationship": {"type": "one_to_many", "variant": "scalar",
                            "through_tables": ["book_author"]}}]}}]
      """;

  static DocumentPlan plan() {
    return plan(DEFINITION);
  }

  static DocumentPlan plan(String definition) {
    Map<String, TableInfo> tables = new LinkedHashMap<>();
    table(
        tables,
        "book",
        cols(
            "isbn",
            "text",
            "title",
            "text",
            "publisher_id",
            "text",
            "info",
            "jsonb",
            "deleted_at",
            "timestamp with time zone"),
        List.of("isbn"),
        fk(List.of("publisher_id"), "publisher", List.of("id")));
    table(tables, "publisher", cols("id", "text", "name", "text"), List.of("id"));
    table(
        tables,
        "review",
        cols("id", "text", "book_isbn", "text", "stars", "integer", "status", "text"),
        List.of("id"),
        fk(List.of("book_isbn"), "book", List.of("isbn")));
    table(
        tables,
        "book_author",
        cols("book_isbn", "text", "author_id", "text"),
        List.of("book_isbn", "author_id"),
        fk(List.of("book_isbn"), "book", List.of("isbn")),
        fk(List.of("author_id"), "author", List.of("id")));
    table(
        tables,
        "author",
        cols(
            "id",
            "text",
            "name",
            "text",
            "city_id",
            "text",
            "deleted_at",
            "timestamp with time zone"),
        List.of("id"),
        fk(List.of("city_id"), "city", List.of("id")));
    table(
        tables,
        "city",
        cols("id", "text", "name", "text", "country_id", "text"),
        List.of("id"),
        fk(List.of("country_id"), "country", List.of("id")));
    table(
        tables,
        "country",
        cols("id", "text", "name", "text", "continent_id", "text"),
        List.of("id"),
        fk(List.of("continent_id"), "continent", List.of("id")));
    table(tables, "continent", cols("id", "text", "name", "text"), List.of("id"));
    table(
        tables,
        "book_subject",
        cols("book_isbn", "text", "subject_id", "integer"),
        List.of("book_isbn", "subject_id"),
        fk(List.of("book_isbn"), "book", List.of("isbn")),
        fk(List.of("subject_id"), "subject", List.of("id")));
    table(tables, "subject", cols("id", "integer", "name", "text"), List.of("id"));
    return DocumentPlanner.plan(
        DefinitionFile.parse(definition).get(0),
        (schema, table) -> Optional.ofNullable(tables.get(table)));
  }

  private static Map<String, String> cols(String... nameType) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (int i = 0; i < nameType.length; i += 2) {
      columns.put(nameType[i], nameType[i + 1]);
    }
    return columns;
  }

  private static ForeignKey fk(List<String> columns, String table, List<String> referenced) {
    return new ForeignKey(columns, "public", table, referenced);
  }

  private static void table(
      Map<String, TableInfo> tables,
      String name,
      Map<String, String> columns,
      List<String> key,
      ForeignKey... foreignKeys) {
    tables.put(name, TableInfo.of("public", name, columns, key, List.of(foreignKeys)));
  }
}
