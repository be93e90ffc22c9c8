package dev.weir.capture;

import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.connector.postgresql.connection.wal2json.DateTimeFormat;
import io.debezium.data.SpecialValueDecimal;
import io.debezium.relational.Column;
import io.debezium.relational.Table;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/**
 * A value of a snapshot's row, as Debezium's converters take it: read as the change stream reads
 * it, so that a row's snapshot and its changes carry one value.
 *
 * <p>Flink CDC's snapshot reads each column with {@code ResultSet.getObject}, through pgjdbc's Java
 * types: a numeric {@code Infinity} throws (pgjdbc's {@code BigDecimal}) and {@code NaN} becomes a
 * double Debezium refuses, a {@code time} is a {@code java.sql.Time} (milliseconds, {@code
 * 24:00:00} is midnight), a {@code timetz} one in whole seconds, a BC date or timestamp a {@code
 * java.sql.Date} or {@code Timestamp} of the Julian calendar whose era is lost. Debezium's own
 * snapshot reads these columns as text ({@link PostgresConnection#getColumnValue}); dates and
 * timestamps are parsed here from PostgreSQL's text as pgoutput's stream parses them, and a {@code
 * numeric[]} by {@link NumericArrays}, as cdc-catalog's stream reads it.
 */
final class SnapshotValues {

  private SnapshotValues() {}

  /** Column {@code index} (1-based) of {@code rs}'s current row, the value of {@code column}. */
  static Object read(
      ResultSet rs,
      int index,
      Column column,
      Table table,
      PostgresConnection connection,
      PostgresSchema schema)
      throws SQLException {
    return switch (column.nativeType()) {
      case PgOid.DATE, PgOid.TIMESTAMP, PgOid.TIMESTAMPTZ -> {
        String text = rs.getString(index);
        yield text == null ? null : fromText(column.nativeType(), text);
      }
      case PgOid.NUMERIC_ARRAY -> {
        String text = rs.getString(index);
        Optional<List<SpecialValueDecimal>> elements =
            text == null ? Optional.empty() : NumericArrays.elements(text);
        yield elements.isPresent()
            ? elements.get()
            : connection.getColumnValue(rs, index, column, table, schema);
      }
      default -> connection.getColumnValue(rs, index, column, table, schema);
    };
  }

  /**
   * A {@code date}, {@code timestamp} or {@code timestamptz} from PostgreSQL's text (its ISO style,
   * which pgjdbc sets), as Debezium's pgoutput stream makes it ({@code AbstractColumnValue}'s
   * {@code asLocalDate}, {@code asInstant}, {@code asOffsetDateTimeAtUtc}).
   */
  static Object fromText(int oid, String text) {
    DateTimeFormat format = DateTimeFormat.get();
    return switch (oid) {
      case PgOid.DATE -> format.date(text);
      case PgOid.TIMESTAMP ->
          switch (text) {
            case "infinity" -> PostgresValueConverter.POSITIVE_INFINITY_INSTANT;
            case "-infinity" -> PostgresValueConverter.NEGATIVE_INFINITY_INSTANT;
            default -> format.timestampToInstant(text);
          };
      case PgOid.TIMESTAMPTZ ->
          switch (text) {
            case "infinity" -> PostgresValueConverter.POSITIVE_INFINITY_OFFSET_DATE_TIME;
            case "-infinity" -> PostgresValueConverter.NEGATIVE_INFINITY_OFFSET_DATE_TIME;
            default ->
                format
                    .timestampWithTimeZoneToOffsetDateTime(text)
                    .withOffsetSameInstant(ZoneOffset.UTC);
          };
      default -> throw new IllegalArgumentException("not a date or timestamp type: oid " + oid);
    };
  }
}
