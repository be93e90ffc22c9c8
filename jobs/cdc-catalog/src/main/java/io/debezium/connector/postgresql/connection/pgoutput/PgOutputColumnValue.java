/*
 * Copyright Debezium Authors.
 *
 * Licensed under the Apache Software License version 2.0, available at http://www.apache.org/licenses/LICENSE-2.0
 */
package io.debezium.connector.postgresql.connection.pgoutput;

import dev.weir.capture.NumericArrays;
import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresStreamingChangeEventSource.PgConnectionSupplier;
import io.debezium.connector.postgresql.PostgresType;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.connector.postgresql.connection.AbstractColumnValue;
import io.debezium.data.SpecialValueDecimal;
import io.debezium.util.Strings;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

/**
 * Debezium 1.9.8's class, in its place, with two changes. {@link #asDecimal} is Debezium 2.3.3's
 * (DBZ-6758): a numeric {@code Infinity} or {@code -Infinity} from pgoutput is the special value,
 * as {@code NaN} is, not a {@code BigDecimal} that fails the stream. {@link #asArray} reads a
 * {@code numeric[]} with weir's {@link NumericArrays}, as cdc-catalog's snapshot does: pgjdbc's
 * array refuses those elements. Flink CDC 3.5 puts its own copies of Debezium's classes first the
 * same way; the shaded jar leaves Debezium's copy of this one out (jobs/dist/pom.xml).
 *
 * @author Chris Cranford
 */
class PgOutputColumnValue extends AbstractColumnValue<String> {

  private String value;

  PgOutputColumnValue(String value) {
    this.value = value;
  }

  @Override
  public String getRawValue() {
    return value;
  }

  @Override
  public boolean isNull() {
    return value == null;
  }

  @Override
  public String asString() {
    return value;
  }

  @Override
  public Boolean asBoolean() {
    return "t".equalsIgnoreCase(value);
  }

  @Override
  public Integer asInteger() {
    return Integer.valueOf(value);
  }

  @Override
  public Long asLong() {
    return Long.valueOf(value);
  }

  @Override
  public Float asFloat() {
    return Float.valueOf(value);
  }

  @Override
  public Double asDouble() {
    return Double.valueOf(value);
  }

  @Override
  public SpecialValueDecimal asDecimal() {
    return PostgresValueConverter.toSpecialValue(value)
        .orElseGet(() -> new SpecialValueDecimal(new BigDecimal(value)));
  }

  @Override
  public Object asArray(
      String columnName, PostgresType type, String fullType, PgConnectionSupplier connection) {
    if (type.getOid() == PgOid.NUMERIC_ARRAY) {
      Optional<List<SpecialValueDecimal>> elements = NumericArrays.elements(value);
      if (elements.isPresent()) {
        return elements.get();
      }
    }
    return super.asArray(columnName, type, fullType, connection);
  }

  @Override
  public byte[] asByteArray() {
    return Strings.hexStringToByteArray(value.substring(2));
  }
}
