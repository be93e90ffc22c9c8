/*
 * Copyright Debezium Authors.
 *
 * Licensed under the Apache Software License version 2.0, available at http://www.apache.org/licenses/LICENSE-2.0
 */
package io.debezium.connector.postgresql.connection.pgoutput;

import dev.weir.capture.TemporalText;
import dev.weir.capture.TextArrays;
import io.debezium.connector.postgresql.PostgresStreamingChangeEventSource.PgConnectionSupplier;
import io.debezium.connector.postgresql.PostgresType;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.connector.postgresql.connection.AbstractColumnValue;
import io.debezium.data.SpecialValueDecimal;
import io.debezium.util.Strings;
import java.math.BigDecimal;
import java.time.OffsetTime;
import java.util.List;
import java.util.Optional;

/**
 * Debezium 1.9.8's class, in its place, with three changes. {@link #asDecimal} is Debezium 2.3.3's
 * (DBZ-6758): a numeric {@code Infinity} or {@code -Infinity} from pgoutput is the special value,
 * as {@code NaN} is, not a {@code BigDecimal} that fails the stream. {@link #asArray} reads arrays
 * of numerics, dates and times with weir's {@link TextArrays}, as cdc-catalog's snapshot does:
 * pgjdbc's arrays refuse a numeric's special values and lose a date's era and a time's
 * microseconds. {@link #asOffsetTimeUtc} keeps a timetz's offset. Flink CDC 3.5 puts its own copies
 * of Debezium's classes first the same way; the shaded jar leaves Debezium's copy of this one out
 * (jobs/dist/pom.xml).
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
    Optional<List<Object>> elements = TextArrays.elements(type.getOid(), value);
    return elements.isPresent()
        ? elements.get()
        : super.asArray(columnName, type, fullType, connection);
  }

  /** At the value's own offset, not in UTC (weir's change): Debezium's converter keeps it. */
  @Override
  public OffsetTime asOffsetTimeUtc() {
    return TemporalText.timetz(value);
  }

  @Override
  public byte[] asByteArray() {
    return Strings.hexStringToByteArray(value.substring(2));
  }
}
