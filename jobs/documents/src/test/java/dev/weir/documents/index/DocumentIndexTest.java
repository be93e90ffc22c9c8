package dev.weir.documents.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import dev.weir.schema.Json;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The index's mapping and documents, derived from a definition. */
class DocumentIndexTest {

  private static final String DEFINITION =
      """
      [{"database": "library", "index": "books",
        "nodes": {"table": "book",
          "columns": ["id", "title", "price", "published", "updated_at", "attributes", "tags",
                      "isbn", "in_print"],
          "transform": {"rename": {"in_print": "available"},
                        "mapping": {"title": {"type": "text", "analyzer": "english"}}},
          "children": [
            {"table": "publisher", "columns": ["name"],
             "relationship": {"type": "one_to_one", "variant": "object"},
             "transform": {"mapping": {"name": {"type": "keyword"}}},
             "children": [
               {"table": "country", "label": "country", "columns": ["code", "name"],
                "relationship": {"type": "one_to_one", "variant": "object"}}]},
            {"table": "author", "label": "authors", "columns": ["name", "born"],
             "relationship": {"type": "one_to_many", "variant": "object",
                              "through_tables": ["book_author"]}},
            {"table": "book_keyword", "label": "keywords", "columns": ["word"],
             "relationship": {"type": "one_to_many", "variant": "scalar"}},
            {"table": "book_rating", "label": "ratings", "columns": ["stars"],
             "relationship": {"type": "one_to_many", "variant": "scalar"}}]}}]
      """;

  private static final String EXPECTED_MAPPING =
      """
      {"settings": {"number_of_shards": 1, "number_of_replicas": 0, "gc_deletes": "1h"},
       "mappings": {"dynamic": "strict", "properties": {
         "id": {"type": "long"},
         "title": {"type": "text", "analyzer": "english"},
         "price": {"type": "double", "ignore_malformed": true},
         "published": {"type": "date", "ignore_malformed": true},
         "updated_at": {"type": "date", "ignore_malformed": true},
         "attributes": {"type": "object", "enabled": false},
         "tags": {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}},
         "isbn": {"type": "keyword", "ignore_above": 1024},
         "available": {"type": "boolean"},
         "publisher": {"properties": {
           "name": {"type": "keyword", "ignore_above": 8191},
           "country": {"properties": {
             "code": {"type": "keyword", "ignore_above": 1024},
             "name": {"type": "text",
                      "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}}}}}},
         "authors": {"properties": {
           "name": {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}},
           "born": {"type": "date", "ignore_malformed": true}}},
         "keywords": {"type": "text",
                      "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}},
         "ratings": {"type": "long"},
         "content_hash": {"type": "keyword", "index": false, "doc_values": false}}}}
      """;

  private final DocumentPlan plan =
      DocumentPlanner.plan(DefinitionFile.parse(DEFINITION).get(0), DocumentIndexTest::table);
  private final DocumentIndex index = new DocumentIndex(plan);

  @Test
  void theMappingIsDerivedFromTheColumnTypesTheChildrenAndTheDefinitionsOverrides()
      throws Exception {
    assertThat(Json.mapper().readTree(index.mapping()))
        .isEqualTo(Json.mapper().readTree(EXPECTED_MAPPING));
  }

  /**
   * PGSync's {@code setting} goes into the index's settings, its document {@code mapping} over the
   * derived field's ({@code nested} keeps the object's properties); a field it names that the
   * document does not have is refused.
   */
  @Test
  void pgsyncsSettingAndDocumentMappingGoOverTheDerivedOnes() throws Exception {
    String withBoth =
        DEFINITION.replace(
            "\"index\": \"books\",",
            """
            "index": "books",
            "setting": {"analysis": {"analyzer": {"ngram": {"type": "custom",
                                                            "tokenizer": "standard"}}}},
            "mapping": {"authors": {"type": "nested"}},
            """);
    JsonNode mapping =
        Json.mapper()
            .readTree(
                new DocumentIndex(
                        DocumentPlanner.plan(
                            DefinitionFile.parse(withBoth).get(0), DocumentIndexTest::table))
                    .mapping());
    assertThat(mapping.at("/settings/analysis/analyzer/ngram/tokenizer").asText())
        .isEqualTo("standard");
    assertThat(mapping.at("/settings/number_of_shards").asInt()).isEqualTo(1);
    assertThat(mapping.at("/mappings/properties/authors"))
        .isEqualTo(
            Json.mapper()
                .readTree(
                    """
                    {"type": "nested", "properties": {
                      "name": {"type": "text",
                               "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}},
                      "born": {"type": "date", "ignore_malformed": true}}}
                    """));
    assertThatThrownBy(
            () ->
                DocumentPlanner.plan(
                    DefinitionFile.parse(
                            withBoth.replace("\"authors\": {\"type\"", "\"writers\": {\"type\""))
                        .get(0),
                    DocumentIndexTest::table))
        .hasMessage(
            "document 'books': mapping names 'writers', which is not a field of the document");
  }

  @Test
  void theAliasIsTheDefinitionsIndexAndTheFirstIndexBehindItIsVersionOne() {
    assertThat(index.alias()).isEqualTo("books");
    assertThat(index.initialIndex()).isEqualTo("books-v1");
  }

  @Test
  void aChangeIsIndexedWithItsValuesAsTheyAreAndItsVersion() throws Exception {
    DocumentChange change = new DocumentChange();
    change.id = "42";
    change.version = 7;
    change.values = new String[plan.documentFields().size()];
    Arrays.fill(change.values, "null");
    change.values[1] = "\"Dune\"";
    change.values[6] = "[\"sf\",\"classic\"]";
    change.values[10] = "[{\"name\":\"Frank Herbert\",\"born\":\"1920-10-08\"}]";
    change.contentHash = new byte[] {0x0a, (byte) 0xff};

    DocumentOperation op = index.converter("books-v2").apply(change, null);

    assertThat(op.index()).isEqualTo("books-v2");
    assertThat(op.id()).isEqualTo("42");
    assertThat(op.version()).isEqualTo(7);
    JsonNode doc = Json.mapper().readTree(op.source());
    assertThat(doc.fieldNames())
        .toIterable()
        .containsExactly(
            "id",
            "title",
            "price",
            "published",
            "updated_at",
            "attributes",
            "tags",
            "isbn",
            "available",
            "publisher",
            "authors",
            "keywords",
            "ratings",
            "content_hash");
    assertThat(doc.get("title").asText()).isEqualTo("Dune");
    assertThat(doc.get("tags")).isEqualTo(Json.mapper().readTree("[\"sf\",\"classic\"]"));
    assertThat(doc.get("authors").get(0).get("born").asText()).isEqualTo("1920-10-08");
    assertThat(doc.get("price").isNull()).isTrue();
    assertThat(doc.get("content_hash").asText()).isEqualTo("0aff");
  }

  @Test
  void theSizeCountedIsNeverMoreThanTheDocumentsSize() {
    List<String> names =
        plan.documentFields().stream().map(DocumentPlan.DocumentField::name).toList();
    for (String title : List.of("\"Dune\"", "\"é😀\\n\"", "null")) {
      String[] values = document("1", title).values;
      assertThat(DocumentSource.sizeAtLeast(names, values))
          .isLessThanOrEqualTo(DocumentSource.json(names, values, new byte[32]).length);
    }
  }

  private DocumentChange document(String id, String title) {
    DocumentChange change = new DocumentChange();
    change.id = id;
    change.version = 7;
    change.values = new String[plan.documentFields().size()];
    Arrays.fill(change.values, "null");
    change.values[1] = title;
    change.contentHash = new byte[32];
    return change;
  }

  @Test
  void aDeletionIsADeleteWithItsVersion() {
    DocumentOperation op = index.converter("books").apply(DocumentChange.deletion("42", 9), null);

    assertThat(op.isDelete()).isTrue();
    assertThat(op.id()).isEqualTo("42");
    assertThat(op.version()).isEqualTo(9);
  }

  private static Optional<TableInfo> table(String schema, String table) {
    return Optional.ofNullable(
        switch (table) {
          case "book" ->
              TableInfo.of(
                  schema,
                  table,
                  columns(
                      "id", "bigint",
                      "title", "text",
                      "price", "numeric(10,2)",
                      "published", "date",
                      "updated_at", "timestamp with time zone",
                      "attributes", "jsonb",
                      "tags", "text[]",
                      "isbn", "character(13)",
                      "in_print", "boolean",
                      "publisher_id", "bigint"),
                  List.of("id"),
                  List.of(fk("publisher_id", "publisher")));
          case "publisher" ->
              TableInfo.of(
                  schema,
                  table,
                  columns("id", "bigint", "name", "text", "country_code", "character(2)"),
                  List.of("id"),
                  List.of(
                      new ForeignKey(
                          List.of("country_code"), "public", "country", List.of("code"))));
          case "country" ->
              TableInfo.of(
                  schema,
                  table,
                  columns("code", "character(2)", "name", "text"),
                  List.of("code"),
                  List.of());
          case "author" ->
              TableInfo.of(
                  schema,
                  table,
                  columns("id", "bigint", "name", "text", "born", "date"),
                  List.of("id"),
                  List.of());
          case "book_author" ->
              TableInfo.of(
                  schema,
                  table,
                  columns("book_id", "bigint", "author_id", "bigint"),
                  List.of("book_id", "author_id"),
                  List.of(fk("book_id", "book"), fk("author_id", "author")));
          case "book_keyword" ->
              TableInfo.of(
                  schema,
                  table,
                  columns("book_id", "bigint", "word", "text"),
                  List.of("book_id", "word"),
                  List.of(fk("book_id", "book")));
          case "book_rating" ->
              TableInfo.of(
                  schema,
                  table,
                  columns("id", "bigint", "book_id", "bigint", "stars", "smallint"),
                  List.of("id"),
                  List.of(fk("book_id", "book")));
          default -> null;
        });
  }

  private static Map<String, String> columns(String... namesAndTypes) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      columns.put(namesAndTypes[i], namesAndTypes[i + 1]);
    }
    return columns;
  }

  private static ForeignKey fk(String column, String table) {
    return new ForeignKey(List.of(column), "public", table, List.of("id"));
  }
}
