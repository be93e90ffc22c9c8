package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.data.SpecialValueDecimal;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextArraysTest {

  @Test
  void aNumericArraysElementsAreDebeziumsNumerics() {
    assertThat(
            TextArrays.elements(
                PgOid.NUMERIC_ARRAY, "{1.50,NaN,NULL,Infinity,-Infinity,-0.000001}"))
        .contains(
            Arrays.asList(
                new SpecialValueDecimal(new BigDecimal("1.50")),
                SpecialValueDecimal.NOT_A_NUMBER,
                null,
                SpecialValueDecimal.POSITIVE_INF,
                SpecialValueDecimal.NEGATIVE_INF,
                new SpecialValueDecimal(new BigDecimal("-0.000001"))));
    assertThat(TextArrays.elements(PgOid.NUMERIC_ARRAY, "{}")).contains(List.of());
  }

  @Test
  void dateAndTimeArraysElementsAreTheScalarsValues() {
    assertThat(
            TextArrays.elements(PgOid.DATE_ARRAY, "{2024-02-29,\"0044-03-15 BC\",infinity,NULL}"))
        .contains(
            Arrays.asList(
                LocalDate.of(2024, 2, 29),
                LocalDate.of(-43, 3, 15),
                PostgresValueConverter.POSITIVE_INFINITY_LOCAL_DATE,
                null));
    assertThat(TextArrays.elements(PgOid.TIME_ARRAY, "{13:14:15.123456,24:00:00}"))
        .contains(List.of("13:14:15.123456", "24:00:00"));
    assertThat(TextArrays.elements(PgOid.TIMETZ_ARRAY, "{13:14:15+02,00:00:00.5-05:30}"))
        .contains(
            List.of(
                OffsetTime.of(LocalTime.of(13, 14, 15), ZoneOffset.ofHours(2)),
                OffsetTime.of(LocalTime.of(0, 0, 0, 500_000_000), ZoneOffset.of("-05:30"))));
    assertThat(
            TextArrays.elements(
                PgOid.TIMESTAMP_ARRAY,
                "{\"0044-03-15 12:30:00.5 BC\",\"1970-01-01 00:00:00.000001\"}"))
        .contains(
            List.of(
                LocalDate.of(-43, 3, 15).atTime(12, 30, 0, 500_000_000).toInstant(ZoneOffset.UTC),
                Instant.ofEpochSecond(0, 1000)));
    assertThat(
            TextArrays.elements(
                PgOid.TIMESTAMPTZ_ARRAY, "{\"0100-01-01 00:00:00.000001+00 BC\",-infinity}"))
        .contains(
            List.of(
                OffsetDateTime.of(-99, 1, 1, 0, 0, 0, 1000, ZoneOffset.UTC),
                PostgresValueConverter.NEGATIVE_INFINITY_OFFSET_DATE_TIME));
  }

  @Test
  void quotedElementsAreUnescapedAndAQuotedNullIsText() {
    assertThat(TextArrays.texts("{\"a \\\"b\\\"\",\"NULL\",NULL,\"c,d\"}"))
        .contains(Arrays.asList("a \"b\"", "NULL", null, "c,d"));
  }

  @Test
  void anyOtherShapeOrTypeIsLeftToPgjdbc() {
    assertThat(TextArrays.elements(PgOid.NUMERIC_ARRAY, "{{1,2},{3,4}}")).isEmpty();
    assertThat(TextArrays.elements(PgOid.DATE_ARRAY, "[0:1]={2024-01-01,2024-01-02}")).isEmpty();
    assertThat(TextArrays.elements(PgOid.INT4_ARRAY, "{1,2}")).isEmpty();
  }
}
