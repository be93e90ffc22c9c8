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
  }

  @Test
  void datesAndTimestampsOfEveryYearPostgresqlHoldsAreWrittenAsItWritesThem() {
    // to_jsonb's forms (PostgreSQL 17): a fifth digit, BC, infinity; the copy reads them back.
    assertThat(Values.normalize("d", "10000-01-01", "date").asText()).isEqualTo("10000-01-01");
    assertThat(Values.normalize("d", "0044-03-15 BC", "date").asText()).isEqualTo("0044-03-15 BC");
    assertThat(Values.normalize("d", -732_520, "date").asText())
        .as("Debezium's epoch days before year 1")
        .isEqualTo("0037-06-06 BC");
    assertThat(Values.normalize("d", "infinity", "date").asText()).isEqualTo("infinity");
    // Debezium 1.9's numbers for them (seen on the stack): pgjdbc's infinity cut to epoch days,
    // and its infinity milliseconds passed on as a timestamp's number.
    assertThat(Values.normalize("i", "P1Y2M3DT4H5M6.788999999999999S", "interval").asText())
        .as("Debezium's interval.handling.mode=string, its seconds from a double")
        .isEqualTo("P1Y2M3DT4H5M6.789S");
    assertThat(Values.normalize("d", -622_191_234, "date").asText()).isEqualTo("infinity");
    assertThat(Values.normalize("d", -625_821_272, "date").asText()).isEqualTo("-infinity");
    assertThat(Values.normalize("d", -2_147_472_692, "date").asText()).isEqualTo("infinity");
    assertThat(Values.normalize("d", -2_147_472_691, "date").asText()).isEqualTo("-infinity");
    assertThat(Values.normalize("t", 9_223_372_036_825_200_000L, "timestamp").asText())
        .isEqualTo("infinity");
    assertThat(Values.normalize("t", -9_223_372_036_832_400_000L, "timestamp(6)").asText())
        .isEqualTo("-infinity");
    assertThat(Values.normalize("t", "10000-01-01T00:00:00Z", "timestamptz").asText())
        .isEqualTo("10000-01-01T00:00:00Z");
    assertThat(Values.normalize("t", "0044-03-15T10:00:00+00:00 BC", "timestamptz").asText())
        .isEqualTo("0044-03-15T10:00:00Z BC");
    assertThat(Values.normalize("t", "-infinity", "timestamptz").asText()).isEqualTo("-infinity");
    assertThat(Values.normalize("t", "12000-03-15T10:00:00.5", "timestamp").asText())
        .isEqualTo("12000-03-15T10:00:00.500");
    assertThat(Values.normalize("t", "0044-03-15 10:00:00 BC", "timestamp").asText())
        .isEqualTo("0044-03-15T10:00 BC");
  }

  @Test
  void aTimestampNumberIsReadByItsColumnsPrecisionAsDebeziumWritesIt() {
    // 1970-01-02, where microseconds and milliseconds cannot be told apart by size.
    assertThat(Values.normalize("t", 86_400_000_000L, "timestamp without time zone").asText())
        .isEqualTo("1970-01-02T00:00");
    assertThat(Values.normalize("t", 86_400_000L, "timestamp(3) without time zone").asText())
        .isEqualTo("1970-01-02T00:00");
  }

  @Test
  void timesOfDayAreTextNotMicroseconds() {
    assertThat(Values.normalize("t", 47_655_000_000L, "time without time zone").asText())
        .isEqualTo("13:14:15");
    assertThat(Values.normalize("t", 47_655_120L, "time(3) without time zone").asText())
        .as("Debezium's Time, milliseconds, for a precision up to 3")
        .isEqualTo("13:14:15.12");
    assertThat(Values.normalize("t", 86_400_000_000L, "time").asText()).isEqualTo("24:00:00");
    assertThat(Values.normalize("t", "13:14:15.500", "time").asText()).isEqualTo("13:14:15.5");
    assertThat(Values.normalize("t", "13:14:15.123+02", "time with time zone").asText())
        .as("at its own offset, as to_jsonb writes it")
        .isEqualTo("13:14:15.123+02");
    assertThat(Values.normalize("t", "01:00:00Z", "timetz").asText()).isEqualTo("01:00:00+00");
    assertThat(Values.normalize("t", "01:00:00+05:30:15", "timetz").asText())
        .isEqualTo("01:00:00+05:30:15");
    assertThat(Values.normalize("t", "01:00:00.5-05:30", "timetz").asText())
        .isEqualTo("01:00:00.5-05:30");
    assertThatThrownBy(() -> Values.normalize("t", 86_400_000_001L, "time"))
        .hasMessageStartingWith("'t' is not a time of day");
  }

  @Test
  void intervalsAreWrittenAsPostgresqlsIsoStyleWritesThem() {
    // Each pair: an input, and to_jsonb's output under intervalstyle iso_8601 for that interval.
    assertThat(Values.normalize("i", "P1Y2M3DT4H5M6.78S", "interval").asText())
        .isEqualTo("P1Y2M3DT4H5M6.78S");
    assertThat(Values.normalize("i", "P0Y0M-1DT2H0M0S", "interval").asText()).isEqualTo("P-1DT2H");
    assertThat(Values.normalize("i", "PT-1.5S", "interval").asText()).isEqualTo("PT-1.5S");
    assertThat(Values.normalize("i", "P14M", "interval").asText()).isEqualTo("P1Y2M");
    assertThat(Values.normalize("i", "P2W", "interval").asText()).isEqualTo("P14D");
    assertThat(Values.normalize("i", "-P1D", "interval").asText()).isEqualTo("P-1D");
    assertThat(Values.normalize("i", "PT0S", "interval").asText()).isEqualTo("PT0S");
    assertThat(Values.normalize("i", 90_061_500_000L, "interval").asText())
        .as("Debezium's microseconds (interval.handling.mode=numeric)")
        .isEqualTo("PT25H1M1.5S");
    assertThatThrownBy(() -> Values.normalize("i", "1 day", "interval"))
        .hasMessageStartingWith("'i' is not an interval");
  }

  @Test
  void bytesAreWrittenInPostgresqlsHexForm() {
    assertThat(Values.normalize("b", "AQL/", "bytea").asText()).isEqualTo("\\x0102ff");
    assertThat(Values.normalize("b", "\\x0102FF", "bytea").asText()).isEqualTo("\\x0102ff");
    assertThat(Values.normalize("b", "", "bytea").asText()).isEqualTo("\\x");
  }

  @Test
  void numbersTheIndexCannotHoldKeepTheirValue() {
    assertThat(Values.normalize("n", "NaN", "numeric").toString()).isEqualTo("\"NaN\"");
    assertThat(Values.normalize("n", "-Infinity", "numeric").toString()).isEqualTo("\"-Infinity\"");
    // Debezium's decimal.handling.mode=string names them so (SpecialValueDecimal's names).
    assertThat(Values.normalize("n", "NAN", "numeric").toString()).isEqualTo("\"NaN\"");
    assertThat(Values.normalize("n", "POSITIVE_INFINITY", "numeric").toString())
        .isEqualTo("\"Infinity\"");
    assertThat(Values.normalize("a", List.of("NEGATIVE_INFINITY", "1.50"), "numeric[]").toString())
        .isEqualTo("[\"-Infinity\",1.5]");
    String huge = "1" + "0".repeat(400) + ".000000000000000000001";
    assertThat(Values.normalize("n", huge, "numeric").toString()).isEqualTo(huge);
    assertThat(Values.normalize("f", "NaN", "double precision").toString()).isEqualTo("\"NaN\"");
    assertThat(Values.normalize("f", Double.NEGATIVE_INFINITY, "real").toString())
        .isEqualTo("\"-Infinity\"");
    assertThat(Values.normalize("f", "1.5", "real").toString()).isEqualTo("1.5");
    assertThat(Values.normalize("i", "9223372036854775807", "bigint").toString())
        .isEqualTo("9223372036854775807");
  }

  @Test
  void aMultidimensionalArrayKeepsItsDimensions() {
    assertThat(Values.normalize("m", List.of(List.of(1, 2), List.of(3, 4)), "integer[]").toString())
        .isEqualTo("[[1,2],[3,4]]");
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
  void jsonOfAnyShapeIsTakenAndOnlyAFlattenedFieldRefusesObjectsNestedTooDeep() {
    for (String any : List.of("\"x\"", "5", "[1,\"a\",null]", "true", "null", "[[[[1]]]]")) {
      assertThat(Values.normalize("attributes", any, "jsonb").toString()).isEqualTo(any);
    }
    String deepest = "{\"a\":".repeat(20) + "1" + "}".repeat(20);
    Values.checkFlattened("attributes", Values.normalize("attributes", deepest, "jsonb"));
    String deeper = "[" + "{\"a\":".repeat(21) + "1" + "}".repeat(21) + "]";
    assertThat(Values.normalize("attributes", deeper, "jsonb").toString()).isEqualTo(deeper);
    assertThatThrownBy(
            () ->
                Values.checkFlattened(
                    "attributes", Values.normalize("attributes", deeper, "jsonb")))
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
