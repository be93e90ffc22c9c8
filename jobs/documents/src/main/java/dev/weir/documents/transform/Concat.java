package dev.weir.documents.transform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.Serializable;
import java.util.List;
import java.util.function.Function;

/**
 * PGSync's {@code concat} transform: a new text field, {@code destination}, of the node's fields
 * and literals joined by {@code delimiter}, as Python's {@code delimiter.join(map(str, filter(None,
 * values)))} joins them: a null, false, 0, empty text or empty list adds nothing (not even its
 * delimiter), a number as Python writes it, true as {@code True}.
 *
 * @param parts in order: a field of the node (by its name after rename) or, a name that is none of
 *     them, the name itself as text (PGSync's {@code data.get(key, key)})
 */
public record Concat(List<Part> parts, String delimiter, String destination)
    implements Serializable {

  /**
   * A field of the node ({@code literal} false), or a literal text; {@code numbers}: how PGSync
   * reads the field's numbers, which depends on how its column's jsonb text writes them.
   */
  public record Part(String text, boolean literal, Numbers numbers) implements Serializable {}

  /**
   * How {@code json.loads} reads a column's numbers from PostgreSQL's jsonb text: a numeric of a
   * scale always has a fraction there (a float); a real or double a whole value has none (an int);
   * any other as its text is written.
   */
  public enum Numbers {
    AS_WRITTEN,
    FLOAT,
    WHOLE_AS_INT
  }

  /**
   * The destination's value, as JSON text.
   *
   * @param field a field's value by name (JSON text)
   */
  public String apply(Function<String, JsonNode> field) {
    StringBuilder out = new StringBuilder();
    boolean first = true;
    for (Part part : parts) {
      String text;
      if (part.literal) {
        text = part.text;
      } else {
        JsonNode value = field.apply(part.text);
        if (!PythonText.isTrue(value)) {
          continue;
        }
        text = PythonText.str(value, part.numbers);
      }
      if (text.isEmpty()) {
        continue;
      }
      out.append(first ? "" : delimiter).append(text);
      first = false;
    }
    return TextNode.valueOf(out.toString()).toString();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(destination).append(" = ");
    for (int i = 0; i < parts.size(); i++) {
      s.append(i == 0 ? "" : " || " + quoted(delimiter) + " || ");
      s.append(parts.get(i).literal ? quoted(parts.get(i).text) : parts.get(i).text);
    }
    return s.toString();
  }

  private static String quoted(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}
