package dev.weir.documents.transform;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;

/**
 * The values of a node's fields for one row, PGSync's transforms applied, as JSON texts in the
 * node's field order: a plain column's value as the row has it (never parsed), a transformed one
 * through its {@link FieldTransform}, then each concat of the fields before it.
 */
public final class FieldValues {

  private FieldValues() {}

  /**
   * @param column a column's value in the row, as JSON text ({@code null} when it has none)
   */
  public static String[] of(DocumentPlan.Node node, Function<String, String> column) {
    List<Field> fields = node.fields();
    String[] values = new String[fields.size()];
    boolean concats = false;
    for (int i = 0; i < values.length; i++) {
      Field f = fields.get(i);
      if (f.concat() != null) {
        concats = true;
      } else {
        values[i] = of(f, column);
      }
    }
    if (concats) {
      for (int i = 0; i < values.length; i++) {
        if (fields.get(i).concat() != null) {
          int upTo = i;
          values[i] = fields.get(i).concat().apply(name -> earlier(fields, values, upTo, name));
        }
      }
    }
    return values;
  }

  /** One field's value; not for a concat, which needs the others. */
  public static String of(Field f, Function<String, String> column) {
    String json = column.apply(f.column());
    return f.transform() == null ? json : f.transform().apply(json);
  }

  /** The value of the field named {@code name} among the first {@code upTo}, parsed. */
  private static JsonNode earlier(List<Field> fields, String[] values, int upTo, String name) {
    for (int i = 0; i < upTo; i++) {
      if (fields.get(i).name().equals(name)) {
        try {
          return Json.mapper().readTree(values[i]);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return null;
  }
}
