package dev.weir.documents.copy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Copy column types are spelled as format_type prints them, or text when not built in. */
class CopyColumnTypeTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "bigint | bigint",
        "int8 | bigint",
        "int | integer",
        "numeric(10,2) | numeric(10,2)",
        "NUMERIC(10, 2) | numeric(10,2)",
        "numeric | numeric",
        "character varying(40) | character varying(40)",
        "varchar(40) | character varying(40)",
        "character(3) | character(3)",
        "text[] | text[]",
        "integer[][] | integer[][]",
        "timestamp with time zone | timestamp with time zone",
        "timestamptz | timestamp with time zone",
        "timestamp(3) with time zone | timestamp(3) with time zone",
        "timestamp(6) without time zone[] | timestamp(6) without time zone[]",
        "double precision | double precision",
        "jsonb | jsonb",
        "json | json",
        "uuid | uuid",
        "date | date",
        "mood | text",
        "public.mood[] | text[]",
        "citext | text",
        "interval | interval",
        "interval year to month | interval year to month",
        "interval(3) | interval(3)",
        "bytea | bytea",
        "time without time zone | time without time zone",
        "time(3) without time zone | time(3) without time zone",
        "timetz | time with time zone",
        "time with time zone[] | time with time zone[]",
        "\"Odd Type\" | text"
      })
  void theCopyTypeOfASourceType(String source, String copy) {
    assertThat(CopyColumnType.of(source)).isEqualTo(copy);
  }

  /**
   * A copy column follows its source's widening, and only a widening: no value it holds changes.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "smallint | integer | true",
        "integer | bigint | true",
        "smallint | bigint | true",
        "bigint | integer | false",
        "integer | integer | false",
        "integer | numeric | true",
        "integer | numeric(12,2) | true",
        "integer | numeric(12,3) | false",
        "bigint | numeric(19,0) | true",
        "integer | real | false",
        "integer | text | false",
        "numeric(6,2) | numeric(12,2) | true",
        "numeric(6,2) | numeric | true",
        "numeric(6,2) | numeric(7,3) | true",
        "numeric(6,2) | numeric(6,3) | false",
        "numeric(6,2) | numeric(12,1) | false",
        "numeric | numeric(30,10) | false",
        "numeric(12,2) | bigint | false",
        "real | double precision | true",
        "double precision | real | false",
        "character varying(5) | character varying(50) | true",
        "character varying(5) | character varying | true",
        "character varying(5) | text | true",
        "character varying | text | true",
        "character varying(50) | character varying(5) | false",
        "text | character varying(50) | false",
        "character(5) | character(10) | true",
        "character(5) | text | false",
        "character(5) | character varying(10) | false",
        "uuid | text | false",
        "text | uuid | false",
        "date | timestamp without time zone | false",
        "timestamp(3) with time zone | timestamp with time zone | true",
        "timestamp(3) with time zone | timestamp(6) with time zone | true",
        "timestamp with time zone | timestamp(3) with time zone | false",
        "timestamp(3) without time zone | timestamp(6) with time zone | false",
        "time(0) without time zone | time without time zone | true",
        "integer[] | bigint[] | true",
        "character varying(5)[] | text[] | true",
        "integer[] | bigint | false",
        "integer | bigint[] | false",
        "jsonb | jsonb | false",
        "json | jsonb | false",
      })
  void widensOnlyToATypeThatHoldsEveryValueAsItIs(String from, String to, boolean widens) {
    assertThat(CopyColumnType.widens(from, to)).as("%s → %s", from, to).isEqualTo(widens);
  }
}
