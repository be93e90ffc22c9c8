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
}
