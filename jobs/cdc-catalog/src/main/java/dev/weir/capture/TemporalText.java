package dev.weir.capture;

import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.connector.postgresql.connection.wal2json.DateTimeFormat;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A date or time from PostgreSQL's text, as Debezium's converters take it: one parsing for
 * cdc-catalog's snapshot, its stream's timetz and the elements of their arrays.
 */
public final class TemporalText {

  private TemporalText() {}

  /**
   * A {@code date}, {@code time}, {@code timetz}, {@code timestamp} or {@code timestamptz} from
   * PostgreSQL's text (its ISO style, which pgjdbc sets), as Debezium's pgoutput stream makes it
   * ({@code AbstractColumnValue}'s {@code asLocalDate}, {@code asTime}, {@code asInstant}, {@code
   * asOffsetDateTimeAtUtc}); a timetz at its own offset (see {@link #timetz}).
   */
  public static Object value(int oid, String text) {
    DateTimeFormat format = DateTimeFormat.get();
    return switch (oid) {
      case PgOid.TIME -> text; // Debezium's converter reads 24:00:00 and microseconds from text
      case PgOid.TIMETZ -> timetz(text);
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
      default -> throw new IllegalArgumentException("not a date or time type: oid " + oid);
    };
  }

  /**
   * A {@code timetz}'s text ({@code 13:14:15.5+02}) at its own offset. Debezium shifts it to UTC
   * (its snapshot's text and its stream's {@code asOffsetTimeUtc}), where {@code to_jsonb} keeps
   * the offset; given an {@link OffsetTime}, its converter writes it with the offset.
   */
  public static OffsetTime timetz(String text) {
    Matcher hoursOnly = HOURS_OFFSET.matcher(text);
    return OffsetTime.parse(hoursOnly.find() ? text + ":00" : text);
  }

  private static final Pattern HOURS_OFFSET = Pattern.compile("[+-]\\d{2}$");
}
