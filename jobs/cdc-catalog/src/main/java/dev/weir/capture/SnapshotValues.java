package dev.weir.capture;

import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.relational.Column;
import io.debezium.relational.Table;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * java.sql.Date} or {@code Timestamp} of the Julian calendar whose era is lost, arrays of these
 * through pgjdbc's arrays likewise. Debezium's own snapshot reads these columns as text ({@link
 * PostgresConnection#getColumnValue}); dates and times are parsed from PostgreSQL's text as
 * pgoutput's stream parses them ({@link TemporalText}), and their arrays (and a {@code numeric[]})
 * by {@link TextArrays}, as cdc-catalog's stream reads them.
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
      case PgOid.DATE, PgOid.TIMESTAMP, PgOid.TIMESTAMPTZ, PgOid.TIMETZ -> {
        String text = rs.getString(index);
        yield text == null ? null : TemporalText.value(column.nativeType(), text);
      }
      default -> {
        if (!TextArrays.reads(column.nativeType())) {
          yield connection.getColumnValue(rs, index, column, table, schema);
        }
        String text = rs.getString(index);
        Optional<List<Object>> elements =
            text == null ? Optional.empty() : TextArrays.elements(column.nativeType(), text);
        yield elements.isPresent()
            ? elements.get()
            : connection.getColumnValue(rs, index, column, table, schema);
      }
    };
  }
}
