package dev.weir.documents.value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One form per value whatever the writer sent; what is not of its column's type is refused. */
class ValuesTest {

  @Test
  void integersFromNumbersOrTextAndNothingElse() {
    assertThat(Values.normalize("id", 42, "bigint").toString()).isEqualTo("42");
    assertThat(Values.normalize("id", "42", "integer").toString()).isEqualTo("42");
    assertThat(Values.normalize("id", new BigDecimal("42.0"), "bigint").toString()).isEqualTo("42");
    assertThatThrownBy(() -> Values.normalize("id", new BigDecimal("1.5"), "bigint"))
        .hasMessage("'id' is not an integer: 1.5");
    assertThatThrownBy(() -> Values.normalize("id", "18446744073709551617", "bigint"))
        .hasMessageContaining("'id' is not an integer: 18446744073709551617");
  }

  @Test
  void decimalsAreExactWithoutTrailingZeros() {
    assertThat(Values.normalize("price", "12.50", "numeric(10,2)").toString()).isEqualTo("12.5");
    assertThat(Values.normalize("price", new BigDecimal("100.00"), "numeric").toString())
        .isEqualTo("100");
    assertThatThrownBy(() -> Values.normalize("price", "AfE=", "numeric"))
        .hasMessageStartingWith("'price' is not a decimal number");
  }

  @Test
  void timestampsInEveryWritersFormAreOneInstant() {
    String expected = "2024-01-02T03:04:05Z";
    assertThat(Values.normalize("t", "2024-01-02T03:04:05Z", "timestamp with time zone").asText())
        .isEqualTo(expected);
    assertThat(Values.normalize("t", "2024-01-02T05:04:05+02:00", "timestamptz").asText())
        .isEqualTo(expected);
    assertThat(Values.normalize("t", 1704164645000000L, "timestamp(3) with time zone").asText())
        .as("Debezium's microseconds")
        .isEqualTo(expected);
    assertThat(Values.normalize("t", 1704164645000L, "timestamptz").asText())
        .as("Kafka Connect's milliseconds")
        .isEqualTo(expected);
    assertThat(Values.normalize("d", 19724, "date").asText()).isEqualTo("2024-01-02");
    assertThatThrownBy(() -> Values.normalize("t", "10000-01-01T00:00:00Z", "timestamptz"))
        .hasMessageStartingWith("'t' is not a timestamp weir can index");
  }

  @Test
  void jsonFromTextOrObjectsAndArraysElementByElement() {
    assertThat(Values.normalize("tags", "{\"a\": [1, 2]}", "jsonb").toString())
        .isEqualTo("{\"a\":[1,2]}");
    assertThat(Values.normalize("tags", Map.of("a", 1), "jsonb").toString()).isEqualTo("{\"a\":1}");
    assertThat(Values.normalize("ids", List.of("1", 2), "bigint[]").toString()).isEqualTo("[1,2]");
    assertThatThrownBy(() -> Values.normalize("tags", "{nope", "jsonb"))
        .hasMessageStartingWith("'tags' is not JSON");
  }

  @Test
  void jsonNestedDeeperThanAFlattenedFieldTakesIsRefused() {
    String deepest = "{\"a\":".repeat(20) + "1" + "}".repeat(20);
    assertThat(Values.normalize("attributes", deepest, "jsonb").toString()).isEqualTo(deepest);
    assertThat(Values.normalize("attributes", "[[[[1]]]]", "jsonb").toString())
        .isEqualTo("[[[[1]]]]");
    assertThatThrownBy(
            () ->
                Values.normalize(
                    "attributes", "[" + "{\"a\":".repeat(21) + "1" + "}".repeat(21) + "]", "jsonb"))
        .hasMessage(
            "'attributes' nests objects 21 deep; its index field (flattened) takes at most 20");
  }

  @Test
  void aFlattenedFieldTakesObjectsListsOfThemAndNull() {
    // What Elasticsearch 8 takes in a flattened field (tried on the local stack's node).
    for (String taken : List.of("{}", "{\"a\":[1,2]}", "[{\"a\":1}]", "[]", "null", "[[{}]]")) {
      Values.checkFlattened("attributes", Values.normalize("attributes", taken, "jsonb"));
    }
    for (String refused : List.of("[1,2]", "\"x\"", "5", "[{\"a\":1},2]")) {
      assertThatThrownBy(
              () ->
                  Values.checkFlattened(
                      "attributes", Values.normalize("attributes", refused, "jsonb")))
          .as(refused)
          .hasMessageStartingWith(
              "'attributes' is indexed as a flattened field, which takes an object or a list of"
                  + " objects, not ");
    }
  }

  @Test
  void aNulInTextOrJsonIsRefusedBeforeItReachesTheCopy() {
    // PostgreSQL stores no U+0000 in text or jsonb: the copy's write would fail on every retry.
    assertThatThrownBy(() -> Values.normalize("name", "a\u0000b", "text"))
        .hasMessage("'name' contains U+0000, which PostgreSQL cannot store");
    assertThatThrownBy(() -> Values.normalize("tags", List.of("ok", "a\u0000b"), "text[]"))
        .hasMessage("'tags' contains U+0000, which PostgreSQL cannot store");
    assertThatThrownBy(() -> Values.normalize("attributes", "{\"k\": \"a\\u0000b\"}", "jsonb"))
        .hasMessage("'attributes' contains U+0000, which PostgreSQL cannot store");
    assertThatThrownBy(() -> Values.normalize("attributes", Map.of("a\u0000", "v"), "jsonb"))
        .hasMessage("'attributes' contains U+0000, which PostgreSQL cannot store");
    assertThat(Values.normalize("name", "a\\u0000b", "text").asText()).isEqualTo("a\\u0000b");
  }

  @Test
  void keysAreTheValuesTextOrTheirJsonArrayAndNullWhenAPartIsNull() {
    var n = JsonNodeFactory.instance;
    assertThat(Values.key(List.of(n.numberNode(42L)))).isEqualTo("42");
    assertThat(Values.key(List.of(n.textNode("b-1")))).isEqualTo("b-1");
    assertThat(Values.key(List.of(n.textNode("eu"), n.numberNode(42L)))).isEqualTo("[\"eu\",42]");
    assertThat(Values.key(List.of(n.textNode("eu"), n.nullNode()))).isNull();
  }

  @Test
  void anImpossibleTimestampIsRefusedWithTheFormattersReason() {
    assertThatThrownBy(() -> Values.normalize("t", "2026-02-30T10:00:00Z", "timestamptz"))
        .hasMessageStartingWith("'t' is not a timestamp");
  }
}
