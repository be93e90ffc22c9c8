package dev.weir.documents.copy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import dev.weir.documents.index.DocumentSource;
import dev.weir.documents.value.Values;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A document read back from the copy is the one the join wrote, byte for byte, although PostgreSQL
 * prints the copy's values its own way (numeric scale, timestamp offsets, jsonb key order and
 * spaces): the backfill sends the streamed document, and its fields hash to the copy's hash.
 */
class CopiedValuesTest {

  private static final String DEFINITION =
      """
      [{"database": "library", "index": "books", "nodes": {
        "table": "book",
        "columns": ["isbn", "price", "published", "updated_at", "printed_at", "tags", "ratings",
                    "weight", "in_print"],
        "children": [
          {"table": "publisher", "columns": ["name", "founded"],
           "relationship": {"type": "one_to_one", "variant": "object"},
           "children": [
             {"table": "country", "columns": ["name"],
              "relationship": {"type": "one_to_one", "variant": "object"},
              "children": [
                {"table": "continent", "columns": ["name"],
                 "relationship": {"type": "one_to_one", "variant": "scalar"}}]}]},
          {"table": "review", "label": "reviews", "columns": ["id", "stars", "score", "body"],
           "relationship": {"type": "one_to_many", "variant": "object"}},
          {"table": "subject", "label": "subjects", "columns": ["name"],
           "relationship": {"type": "one_to_many", "variant": "scalar",
                            "through_tables": ["book_subject"]}},
          {"table": "category", "label": "category_path", "columns": ["name"],
           "relationship": {"type": "one_to_one", "variant": "scalar"},
           "weir": {"path": {"parent": ["parent_id"], "max_depth": 4}}}]}}]
      """;

  private final DocumentPlan plan = plan();

  @Test
  void aCopiedDocumentIsTheStreamedOneByteForByte() {
    String[] streamed = {
      "\"b-1984\"",
      decimal("7.50"), // the join: 7.5
      "\"1949-06-08\"",
      "\"2026-11-21T10:00:00Z\"",
      timestamp("2026-11-21T10:00:00"), // the join: 2026-11-21T10:00
      "{\"a\":1,\"shelf\":\"classics\"}", // Debezium sends jsonb as PostgreSQL prints it
      "[5,4]",
      "1.1",
      "true",
      "{\"name\":\"Secker & Warburg\",\"founded\":\"1910-01-01\","
          + "\"country\":{\"name\":\"India\",\"continent\":\"Asia\"}}",
      "[{\"id\":\"6f1c0000-0000-4000-8000-000000000001\",\"stars\":5,\"score\":"
          + decimal("7.50")
          + ",\"body\":\"Chilling \\\"and\\\" ünïcode\"},"
          + "{\"id\":\"6f1c0000-0000-4000-8000-000000000002\",\"stars\":4,\"score\":"
          + decimal("10.00")
          + ",\"body\":null}]",
      "[\"Dystopia\",\"Politics\"]",
      "[\"Outdoor\",\"Hiking\",\"Backpacks\"]"
    };
    // What to_jsonb(column)::text gives of the copy's row: jsonb orders keys shorter first.
    String[] copied = {
      "\"b-1984\"",
      "7.50",
      "\"1949-06-08\"",
      "\"2026-11-21T10:00:00+00:00\"",
      "\"2026-11-21T10:00:00\"",
      "{\"a\": 1, \"shelf\": \"classics\"}",
      "[5, 4]",
      "1.1",
      "true",
      "{\"name\": \"Secker & Warburg\", \"country\": {\"name\": \"India\", \"continent\":"
          + " \"Asia\"}, \"founded\": \"1910-01-01\"}",
      "[{\"id\": \"6f1c0000-0000-4000-8000-000000000001\", \"body\": \"Chilling \\\"and\\\""
          + " ünïcode\", \"score\": "
          + decimal("7.50")
          + ", \"stars\": 5}, {\"id\": \"6f1c0000-0000-4000-8000-000000000002\", \"body\": null,"
          + " \"score\": "
          + decimal("10.00")
          + ", \"stars\": 4}]",
      "[\"Dystopia\", \"Politics\"]",
      "[\"Outdoor\", \"Hiking\", \"Backpacks\"]"
    };

    assertThat(streamed[1]).isEqualTo("7.5");
    assertThat(streamed[4]).isEqualTo("\"2026-11-21T10:00\"");
    String[] read = read(copied);

    assertThat(read).containsExactly(streamed);
    assertThat(DocumentChange.contentHash(read)).isEqualTo(DocumentChange.contentHash(streamed));
    List<String> names =
        plan.documentFields().stream().map(DocumentPlan.DocumentField::name).toList();
    byte[] hash = DocumentChange.contentHash(streamed);
    assertThat(new String(DocumentSource.json(names, read, hash), StandardCharsets.UTF_8))
        .isEqualTo(new String(DocumentSource.json(names, streamed, hash), StandardCharsets.UTF_8));
  }

  @Test
  void aTextReadBackIsTheJoinsStringWhateverItsEscapes() {
    DocumentPlan.DocumentField isbn = plan.documentFields().get(0);
    // As to_jsonb(text)::text prints them: PostgreSQL escapes control characters other than
    // b f n r t as backslash-u 00xx, lower case, where Jackson writes upper case.
    Map<String, String> printedByPostgres =
        Map.of(
            "quotes \"and\" a back\\slash / é 😀", "\"quotes \\\"and\\\" a back\\\\slash / é 😀\"",
            "lines\nand\ttabs\r\b\f", "\"lines\\nand\\ttabs\\r\\b\\f\"",
            "a unit separator \u001f", "\"a unit separator \\u001f\"",
            "a back\\u and no escape", "\"a back\\\\u and no escape\"");
    printedByPostgres.forEach(
        (text, copied) ->
            assertThat(CopiedValues.field(plan, isbn, copied))
                .as(copied)
                .isEqualTo(Values.normalize("isbn", text, "text").toString()));
  }

  @Test
  void nullsEmptyListsAndMissingChildrenReadBackAsTheJoinWritesThem() {
    String[] streamed = {
      "\"b-2\"", "null", "null", "null", "null", "null", "[]", "null", "false", "null", "[]", "[]",
      "null"
    };
    // SQL NULLs (a null jsonb label is stored as NULL too), and empty arrays.
    String[] copied = {
      "\"b-2\"", null, null, null, null, "null", "[]", null, "false", null, "[]", null, null
    };

    assertThat(read(copied)).containsExactly(streamed);
  }

  @Test
  void aValueNotOfItsTypeIsLeftAsItIsForTheHashToTell() {
    String[] copied = {
      "\"b-3\"", "\"NaN\"", null, null, null, null, "[]", null, "true", null, "[]", "[]", null
    };

    assertThat(read(copied)[1]).isEqualTo("\"NaN\"");
  }

  private String[] read(String[] copied) {
    List<DocumentPlan.DocumentField> fields = plan.documentFields();
    assertThat(fields).hasSize(copied.length);
    String[] read = new String[copied.length];
    for (int i = 0; i < copied.length; i++) {
      read[i] = CopiedValues.field(plan, fields.get(i), copied[i]);
    }
    return read;
  }

  /** A numeric as the join writes it (whatever form Jackson gives a BigDecimal). */
  private static String decimal(String text) {
    return Values.normalize("n", text, "numeric").toString();
  }

  private static String timestamp(String text) {
    return Values.normalize("t", text, "timestamp without time zone").toString();
  }

  private static DocumentPlan plan() {
    Map<String, TableInfo> tables = new LinkedHashMap<>();
    table(
        tables,
        "book",
        cols(
            "isbn",
            "text",
            "price",
            "numeric(10,2)",
            "published",
            "date",
            "updated_at",
            "timestamp with time zone",
            "printed_at",
            "timestamp without time zone",
            "tags",
            "jsonb",
            "ratings",
            "integer[]",
            "weight",
            "real",
            "in_print",
            "boolean",
            "publisher_id",
            "text",
            "category_id",
            "bigint"),
        List.of("isbn"),
        fk(List.of("publisher_id"), "publisher", List.of("id")),
        fk(List.of("category_id"), "category", List.of("id")));
    table(
        tables,
        "publisher",
        cols("id", "text", "name", "text", "founded", "date", "country_code", "text"),
        List.of("id"),
        fk(List.of("country_code"), "country", List.of("code")));
    table(
        tables,
        "country",
        cols("code", "text", "name", "text", "continent_id", "text"),
        List.of("code"),
        fk(List.of("continent_id"), "continent", List.of("id")));
    table(tables, "continent", cols("id", "text", "name", "text"), List.of("id"));
    table(
        tables,
        "review",
        cols(
            "id",
            "uuid",
            "book_isbn",
            "text",
            "stars",
            "integer",
            "score",
            "numeric",
            "body",
            "text"),
        List.of("id"),
        fk(List.of("book_isbn"), "book", List.of("isbn")));
    table(
        tables,
        "book_subject",
        cols("book_isbn", "text", "subject_id", "integer"),
        List.of("book_isbn", "subject_id"),
        fk(List.of("book_isbn"), "book", List.of("isbn")),
        fk(List.of("subject_id"), "subject", List.of("id")));
    table(tables, "subject", cols("id", "integer", "name", "text"), List.of("id"));
    table(
        tables,
        "category",
        cols("id", "bigint", "name", "text", "parent_id", "bigint"),
        List.of("id"),
        fk(List.of("parent_id"), "category", List.of("id")));
    return DocumentPlanner.plan(
        DefinitionFile.parse(DEFINITION).get(0),
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
