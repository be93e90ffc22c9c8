package dev.weir.capture;

import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.data.SpecialValueDecimal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An array of numerics, dates or times from PostgreSQL's text, for Debezium's converter. Debezium
 * 1.9 reads arrays (in the snapshot and in the stream) through pgjdbc's, which refuse a numeric
 * {@code NaN} or {@code ±Infinity} (the array arrived as null) and give dates and times as {@code
 * java.sql} types: a BC date as the same date AD, a time in milliseconds with {@code 24:00:00} as
 * midnight, a timetz in UTC. Each element here is what the column's scalar read gives ({@link
 * TemporalText#value}).
 */
public final class TextArrays {

  private TextArrays() {}

  /** The array types read here: their elements' text is parsed as the scalar's. */
  static boolean reads(int arrayOid) {
    return elementOid(arrayOid) != 0;
  }

  /**
   * The elements of a one-dimensional array's text ({@code {1.50,NaN,NULL}}, {@code {"0044-03-15
   * BC"}}), each as Debezium's converter takes the element's type, or null; empty for an array type
   * not read here and for any other shape (several dimensions, bounds other than 1), which pgjdbc's
   * array reads.
   */
  public static Optional<List<Object>> elements(int arrayOid, String text) {
    int elementOid = elementOid(arrayOid);
    if (elementOid == 0) {
      return Optional.empty();
    }
    return texts(text)
        .map(
            texts -> {
              List<Object> elements = new ArrayList<>(texts.size());
              for (String element : texts) {
                elements.add(element == null ? null : element(elementOid, element));
              }
              return elements;
            });
  }

  private static Object element(int oid, String text) {
    return oid == PgOid.NUMERIC
        ? PostgresValueConverter.toSpecialValue(text)
            .orElseGet(() -> new SpecialValueDecimal(new BigDecimal(text)))
        : TemporalText.value(oid, text);
  }

  private static int elementOid(int arrayOid) {
    return switch (arrayOid) {
      case PgOid.NUMERIC_ARRAY -> PgOid.NUMERIC;
      case PgOid.DATE_ARRAY -> PgOid.DATE;
      case PgOid.TIME_ARRAY -> PgOid.TIME;
      case PgOid.TIMETZ_ARRAY -> PgOid.TIMETZ;
      case PgOid.TIMESTAMP_ARRAY -> PgOid.TIMESTAMP;
      case PgOid.TIMESTAMPTZ_ARRAY -> PgOid.TIMESTAMPTZ;
      default -> 0;
    };
  }

  /**
   * The elements' text of a one-dimensional array (null for an unquoted {@code NULL}, a quoted
   * element unescaped), or empty for any other shape.
   */
  static Optional<List<String>> texts(String text) {
    if (!text.startsWith("{") || !text.endsWith("}")) {
      return Optional.empty();
    }
    List<String> elements = new ArrayList<>();
    int end = text.length() - 1;
    if (end == 1) {
      return Optional.of(elements);
    }
    int i = 1;
    while (true) {
      StringBuilder element = new StringBuilder();
      boolean quoted = i < end && text.charAt(i) == '"';
      if (quoted) {
        i++;
        while (i < end && text.charAt(i) != '"') {
          if (text.charAt(i) == '\\') {
            i++;
          }
          element.append(text.charAt(i++));
        }
        if (i >= end) {
          return Optional.empty();
        }
        i++; // the closing quote
      } else {
        while (i < end && text.charAt(i) != ',') {
          char c = text.charAt(i++);
          if (c == '{' || c == '"') {
            return Optional.empty();
          }
          element.append(c);
        }
      }
      String value = element.toString();
      elements.add(!quoted && value.equals("NULL") ? null : value);
      if (i == end) {
        return Optional.of(elements);
      }
      if (text.charAt(i) != ',') {
        return Optional.empty();
      }
      i++;
    }
  }
}
