package io.debezium.connector.postgresql.connection.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresType;
import io.debezium.data.SpecialValueDecimal;
import java.math.BigDecimal;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** cdc-catalog's copy of the class is the one loaded, before Debezium 1.9's. */
class PgOutputColumnValueTest {

  @Test
  void aNumericsSpecialValuesFromPgoutputAreSpecialValues() {
    assertThat(new PgOutputColumnValue("Infinity").asDecimal())
        .isEqualTo(SpecialValueDecimal.POSITIVE_INF);
    assertThat(new PgOutputColumnValue("-Infinity").asDecimal())
        .isEqualTo(SpecialValueDecimal.NEGATIVE_INF);
    assertThat(new PgOutputColumnValue("NaN").asDecimal())
        .isEqualTo(SpecialValueDecimal.NOT_A_NUMBER);
    assertThat(new PgOutputColumnValue("-0.000000000000000000000000000001").asDecimal())
        .isEqualTo(new SpecialValueDecimal(new BigDecimal("-0.000000000000000000000000000001")));
  }

  @Test
  void aNumericArrayFromPgoutputHoldsItsSpecialValues() {
    PostgresType numericArray =
        new PostgresType.Builder(null, "_numeric", PgOid.NUMERIC_ARRAY, Types.ARRAY, 0, null)
            .build();
    assertThat(
            new PgOutputColumnValue("{NaN,1.50,NULL}")
                .asArray("a", numericArray, "numeric[]", null))
        .isEqualTo(
            Arrays.asList(
                SpecialValueDecimal.NOT_A_NUMBER,
                new SpecialValueDecimal(new BigDecimal("1.50")),
                null));
  }

  @Test
  void aDateArrayFromPgoutputKeepsItsEra() {
    PostgresType dateArray =
        new PostgresType.Builder(null, "_date", PgOid.DATE_ARRAY, Types.ARRAY, 0, null).build();
    assertThat(
            new PgOutputColumnValue("{\"0044-03-15 BC\",NULL}")
                .asArray("a", dateArray, "date[]", null))
        .isEqualTo(Arrays.asList(LocalDate.of(-43, 3, 15), null));
  }

  @Test
  void aTimetzFromPgoutputKeepsItsOffset() {
    assertThat(new PgOutputColumnValue("13:14:15.5+02").asOffsetTimeUtc())
        .isEqualTo(OffsetTime.of(LocalTime.of(13, 14, 15, 500_000_000), ZoneOffset.ofHours(2)));
  }
}
