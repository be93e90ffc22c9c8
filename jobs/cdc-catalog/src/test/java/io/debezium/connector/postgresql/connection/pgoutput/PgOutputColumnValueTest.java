package io.debezium.connector.postgresql.connection.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresType;
import io.debezium.data.SpecialValueDecimal;
import java.math.BigDecimal;
import java.sql.Types;
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
}
