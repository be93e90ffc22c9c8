package dev.weir.documents.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Row filters: SQL's WHERE over one row, with SQL's nulls, on weir's form of the values. */
class RowFilterTest {

  private static final Map<String, String> TYPES = new LinkedHashMap<>();

  static {
    TYPES.put("id", "bigint");
    TYPES.put("status", "text");
    TYPES.put("deleted_at", "timestamp with time zone");
    TYPES.put("published", "date");
    TYPES.put("price", "numeric(10,2)");
    TYPES.put("ratio", "double precision");
    TYPES.put("active", "boolean");
    TYPES.put("kind", "mood");
    TYPES.put("tags", "jsonb");
    TYPES.put("at", "time without time zone");
    TYPES.put("span", "interval");
  }

  @Test
  void theSoftDeleteAndDraftCase() {
    RowFilter f = filter("deleted_at IS NULL AND status <> 'draft'");
    assertThat(f.matches(row("{'deleted_at': null, 'status': 'live'}"))).isTrue();
    assertThat(f.matches(row("{'deleted_at': '2024-01-01T00:00:00Z', 'status': 'live'}")))
        .isFalse();
    assertThat(f.matches(row("{'deleted_at': null, 'status': 'draft'}"))).isFalse();
    assertThat(f.matches(row("{'deleted_at': null, 'status': null}")))
        .as("status <> 'draft' is unknown for a null status: the row is not kept, as in SQL")
        .isFalse();
    assertThat(f.columns()).containsExactly("deleted_at", "status");
  }

  @Test
  void comparisonsCompareValuesOfTheColumnsType() {
    assertThat(filter("price >= 10").matches(row("{'price': 12.5}"))).isTrue();
    assertThat(filter("price >= 10").matches(row("{'price': 9.99}"))).isFalse();
    assertThat(filter("id = '42'").matches(row("{'id': 42}"))).as("'42' read as a bigint").isTrue();
    assertThat(filter("id > 9").matches(row("{'id': 10}"))).as("numerically").isTrue();
    assertThat(filter("published < '2000-01-01'").matches(row("{'published': '0044-03-15 BC'}")))
        .isTrue();
    assertThat(filter("published > '2000-01-01'").matches(row("{'published': '10000-01-01'}")))
        .as("year 10000 after 2000, which text order would not give")
        .isTrue();
    assertThat(filter("deleted_at >= '2024-01-01'").matches(row("{'deleted_at': 'infinity'}")))
        .isTrue();
    assertThat(filter("ratio > 1e308").matches(row("{'ratio': 'NaN'}")))
        .as("NaN above every number, as PostgreSQL orders it")
        .isTrue();
    assertThat(filter("at < '13:14:15.5'").matches(row("{'at': '13:14:15'}"))).isTrue();
    assertThat(filter("span > 'P29D'").matches(row("{'span': 'P1M'}")))
        .as("a month is 30 days")
        .isTrue();
    assertThat(filter("kind = 'happy'").matches(row("{'kind': 'happy'}"))).isTrue();
    assertThat(filter("id = id").matches(row("{'id': 1}"))).isTrue();
  }

  @Test
  void inNotAndOrAndABooleanColumn() {
    RowFilter f = filter("NOT active OR status IN ('a', 'b') AND id NOT IN (1, 2)");
    assertThat(f.toString()).isEqualTo("NOT active OR (status IN ('a', 'b') AND id NOT IN (1, 2))");
    assertThat(f.matches(row("{'active': false, 'status': 'z', 'id': 1}"))).isTrue();
    assertThat(f.matches(row("{'active': true, 'status': 'a', 'id': 3}"))).isTrue();
    assertThat(f.matches(row("{'active': true, 'status': 'a', 'id': 2}"))).isFalse();
    assertThat(filter("(NOT active OR status = 'a') AND id = 1").toString())
        .isEqualTo("(NOT active OR status = 'a') AND id = 1");
    assertThat(filter("id IN (1, NULL)").test(row("{'id': 2}")))
        .as("not found among values with a null: unknown")
        .isNull();
    assertThat(filter("status = NULL").test(row("{'status': 'x'}"))).isNull();
    assertThat(filter("active AND status = 'x'").test(row("{'active': false, 'status': null}")))
        .as("false AND unknown is false")
        .isFalse();
    assertThat(filter("active OR status = 'x'").test(row("{'active': true, 'status': null}")))
        .as("true OR unknown is true")
        .isTrue();
    assertThat(filter("tags IS NOT NULL").matches(row("{'tags': [1]}"))).isTrue();
  }

  @Test
  void keywordsInAnyCaseAndQuotedNamesAndTexts() {
    RowFilter f = filter("\"status\" != 'it''s' and deleted_at is not null");
    assertThat(f.toString()).isEqualTo("status <> 'it''s' AND deleted_at IS NOT NULL");
    assertThat(f.matches(row("{'status': 'x', 'deleted_at': '2024-01-01T00:00:00Z'}"))).isTrue();
  }

  @Test
  void aSyntaxErrorIsAtItsPosition() {
    assertError("status = ", 10, "expected a column or a value at the end");
    assertError("status 'draft'", 8, "unexpected ''draft''");
    assertError("(status = 'a'", 14, "expected ')'");
    assertError("status = 'draft", 10, "a text without its closing quote");
    assertError("status IS 'x'", 11, "expected NULL or NOT NULL after IS");
    assertError("now() > deleted_at", 4, "unexpected '() > deleted_at'");
    assertError("", 1, "is empty");
  }

  @Test
  void aColumnOrLiteralThatDoesNotFitIsAnErrorAtItsPosition() {
    assertBindError("title = 'x'", 1, "'title' is not a column of the node (it has id, status,");
    assertBindError("id = 'abc'", 6, "'abc' is not a value of a bigint column");
    assertBindError("status = 5", 10, "5 is not a value of a text column");
    assertBindError("tags = '{}'", 1, "tags is jsonb: = does not apply; IS NULL does");
    assertBindError("status", 1, "status is text, not a boolean");
    assertBindError("id = status", 6, "compares id (bigint) with status (text)");
  }

  private static void assertError(String text, int position, String message) {
    assertThatThrownBy(() -> RowFilterParser.parse(text))
        .isInstanceOf(RowFilter.FilterException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((RowFilter.FilterException) e).position()).isEqualTo(position));
  }

  private static void assertBindError(String text, int position, String message) {
    assertThatThrownBy(() -> RowFilterParser.parse(text).bind(TYPES))
        .isInstanceOf(RowFilter.FilterException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((RowFilter.FilterException) e).position()).isEqualTo(position));
  }

  private static RowFilter filter(String text) {
    return RowFilterParser.parse(text).bind(TYPES);
  }

  /** A row's values in weir's form, from a JSON object of raw values. */
  private static Function<String, JsonNode> row(String singleQuoted) {
    try {
      JsonNode raw = Json.mapper().readTree(singleQuoted.replace('\'', '"'));
      return c -> {
        JsonNode v = raw.get(c);
        if (v == null || v.isNull()) {
          return null;
        }
        Object value = Json.mapper().convertValue(v, Object.class);
        return Values.normalize(c, value, TYPES.get(c));
      };
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }
}
