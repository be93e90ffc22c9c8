package dev.weir.capture;

import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.data.SpecialValueDecimal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@code numeric[]} from PostgreSQL's text, for Debezium's converter: pgjdbc's arrays (through
 * which Debezium 1.9 reads them, in the snapshot and in the stream) refuse an element {@code NaN}
 * or {@code ±Infinity}, and such an array arrived as null.
 */
public final class NumericArrays {

  private NumericArrays() {}

  /**
   * The elements of a one-dimensional array's text ({@code {1.50,NaN,NULL}}), each a {@link
   * SpecialValueDecimal} or null, as Debezium's converter takes a numeric; empty for any other
   * shape (several dimensions, bounds other than 1), which pgjdbc's array reads.
   */
  public static Optional<List<SpecialValueDecimal>> elements(String text) {
    if (!text.startsWith("{") || !text.endsWith("}") || text.indexOf('{', 1) >= 0) {
      return Optional.empty();
    }
    String body = text.substring(1, text.length() - 1);
    List<SpecialValueDecimal> elements = new ArrayList<>();
    if (body.isEmpty()) {
      return Optional.of(elements);
    }
    for (String element : body.split(",", -1)) {
      elements.add(
          element.equals("NULL")
              ? null
              : PostgresValueConverter.toSpecialValue(element)
                  .orElseGet(() -> new SpecialValueDecimal(new BigDecimal(element))));
    }
    return Optional.of(elements);
  }
}
