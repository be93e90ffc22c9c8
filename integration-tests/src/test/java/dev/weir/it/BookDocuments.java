package dev.weir.it;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.SourceCatalog;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import dev.weir.schema.Json;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A declared document with a field of every kind weir maps: book (text, a large text, integer,
 * numeric, date, timestamptz, jsonb, text[]), its publisher (object), its authors through a link
 * table (list of objects) and its keywords (list of scalars). The catalog is in memory: the copy
 * and the index are made from the plan, not from the source database.
 */
final class BookDocuments {

  static final String DEFINITION =
      """
      [{"database": "library", "index": "%s", "weir": {"copy_table": "%s"},
        "nodes": {"table": "book", "columns": %s,
          "children": [
            {"table": "publisher", "columns": ["name", "country"],
             "relationship": {"type": "one_to_one", "variant": "object"}},
            {"table": "author", "label": "authors", "columns": ["name", "born"],
             "relationship": {"type": "one_to_many", "variant": "object",
                              "through_tables": ["book_author"]}},
            {"table": "book_keyword", "label": "keywords", "columns": ["word"],
             "relationship": {"type": "one_to_many", "variant": "scalar"}}]}}]
      """;

  static final List<String> BOOK_COLUMNS =
      List.of(
          "id",
          "title",
          "description",
          "pages",
          "price",
          "published",
          "updated_at",
          "attributes",
          "tags");

  private BookDocuments() {}

  /** The plan of the book document, the book table's columns as given. */
  static DocumentPlan plan(String index, String copyTable, Map<String, String> bookColumns) {
    String columns =
        bookColumns.keySet().stream()
            .filter(c -> !c.equals("publisher_id"))
            .map(c -> '"' + c + '"')
            .toList()
            .toString();
    return DocumentPlanner.plan(
        DefinitionFile.parse(DEFINITION.formatted(index, copyTable, columns)).get(0),
        catalog(bookColumns));
  }

  static DocumentPlan plan(String index, String copyTable) {
    return plan(index, copyTable, bookColumns());
  }

  /** book's columns → types, as format_type writes them. */
  static LinkedHashMap<String, String> bookColumns() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "bigint");
    columns.put("title", "text");
    columns.put("description", "text");
    columns.put("pages", "integer");
    columns.put("price", "numeric(10,2)");
    columns.put("published", "date");
    columns.put("updated_at", "timestamp with time zone");
    columns.put("attributes", "jsonb");
    columns.put("tags", "text[]");
    columns.put("publisher_id", "bigint");
    return columns;
  }

  private static SourceCatalog catalog(Map<String, String> bookColumns) {
    Map<String, TableInfo> tables =
        Map.of(
            "book",
            TableInfo.of(
                "public",
                "book",
                bookColumns,
                List.of("id"),
                List.of(fk("publisher_id", "publisher", "id"))),
            "publisher",
            TableInfo.of(
                "public",
                "publisher",
                Map.of("id", "bigint", "name", "text", "country", "character(2)"),
                List.of("id"),
                List.of()),
            "author",
            TableInfo.of(
                "public",
                "author",
                Map.of("id", "bigint", "name", "text", "born", "date"),
                List.of("id"),
                List.of()),
            "book_author",
            TableInfo.of(
                "public",
                "book_author",
                Map.of("book_id", "bigint", "author_id", "bigint"),
                List.of("book_id", "author_id"),
                List.of(fk("book_id", "book", "id"), fk("author_id", "author", "id"))),
            "book_keyword",
            TableInfo.of(
                "public",
                "book_keyword",
                Map.of("book_id", "bigint", "word", "text"),
                List.of("book_id", "word"),
                List.of(fk("book_id", "book", "id"))));
    return (schema, table) -> Optional.ofNullable(tables.get(table));
  }

  private static ForeignKey fk(String column, String table, String referenced) {
    return new ForeignKey(List.of(column), "public", table, List.of(referenced));
  }

  /**
   * A document as the join emits it: {@code values} are the JSON text of each field, in the plan's
   * document order; {@code changed} the names of the fields that changed (none given: it is new).
   */
  static DocumentChange change(
      DocumentPlan plan, String id, long version, Map<String, String> values, String... changed) {
    List<String> names =
        plan.documentFields().stream().map(DocumentPlan.DocumentField::name).toList();
    DocumentChange d = new DocumentChange();
    d.id = id;
    d.version = version;
    d.isNew = changed.length == 0;
    d.values = new String[names.size()];
    d.changed = new boolean[names.size()];
    for (int i = 0; i < names.size(); i++) {
      d.values[i] = values.getOrDefault(names.get(i), "null");
      d.changed[i] = d.isNew || Arrays.asList(changed).contains(names.get(i));
    }
    d.contentHash = Integer.toHexString(values.hashCode()).getBytes();
    return d;
  }

  /** A book's field values, as JSON text, with every kind of value. */
  static Map<String, String> values(String description) {
    Map<String, String> book = new HashMap<>();
    book.put("id", "1");
    book.put("title", json("Dune"));
    book.put("description", json(description));
    book.put("pages", "412");
    book.put("price", "12.5");
    book.put("published", json("1965-08-01"));
    book.put("updated_at", json("2026-11-23T05:00:00.500Z"));
    book.put("attributes", "{\"cover\":\"hard\"}");
    book.put("tags", "[\"sf\",\"classic\"]");
    book.put("publisher", "{\"name\":\"Chilton\",\"country\":\"US\"}");
    book.put("authors", "[{\"name\":\"Frank Herbert\",\"born\":null}]");
    book.put("keywords", "[\"spice\",\"worms\"]");
    return book;
  }

  /** A string as JSON text. */
  static String json(String text) {
    try {
      return Json.mapper().writeValueAsString(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
