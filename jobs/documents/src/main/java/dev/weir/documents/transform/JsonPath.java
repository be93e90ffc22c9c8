package dev.weir.documents.transform;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JSON-path column of PGSync's, {@code "doc->firstname"} or {@code "doc#>{a,b,c}->4"}: the value
 * PostgreSQL's {@code ->} and {@code #>} operators give on a json or jsonb column, under PGSync's
 * name for it (the tokens joined by {@code _}, braces removed: {@code doc_firstname}, {@code
 * doc_a,b,c_4}).
 *
 * <p>As PGSync splits the expression: on {@code ->} and {@code #>}, each token after one is the
 * operator's argument as written (a {@code ->} token of digits only is an array index, any other a
 * key). PGSync reads {@code ->>} and {@code #>>} as {@code ->} and {@code #>} of a token starting
 * with {@code >}; weir refuses them rather than guess.
 *
 * @param column the json or jsonb column
 * @param steps each operator and its argument, in order
 * @param name the field's name in the document
 */
public record JsonPath(String column, List<Step> steps, String name) implements Serializable {

  /**
   * One operator: {@code ->} of a key ({@code index} -1) or an array index, or {@code #>} of a path
   * (PostgreSQL's text array literal, {@code {a,b,c}}).
   */
  public record Step(boolean path, String key, int index, List<String> elements)
      implements Serializable {}

  /** PGSync's operators, in its order: a regex alternation tries {@code ->} before {@code ->>}. */
  private static final Pattern OPERATOR = Pattern.compile("->|->>|#>|#>>");

  /** Whether a column entry of a definition is a JSON path rather than a column's name. */
  public static boolean isPath(String entry) {
    return OPERATOR.matcher(entry).find();
  }

  /**
   * The path an entry of {@code columns} names, e.g. {@code doc#>{a,b}->0}.
   *
   * @throws IllegalArgumentException why it is not one weir reads
   */
  public static JsonPath parse(String expression) {
    List<String> tokens = new ArrayList<>();
    List<String> operators = new ArrayList<>();
    Matcher m = OPERATOR.matcher(expression);
    int from = 0;
    while (m.find()) {
      tokens.add(expression.substring(from, m.start()));
      operators.add(m.group());
      from = m.end();
    }
    tokens.add(expression.substring(from));
    String column = tokens.get(0);
    if (column.isEmpty()) {
      throw new IllegalArgumentException(
          "'" + expression + "' names no column before its operator");
    }
    List<Step> steps = new ArrayList<>();
    StringBuilder name = new StringBuilder(column);
    for (int i = 0; i < operators.size(); i++) {
      String token = tokens.get(i + 1);
      if (token.startsWith(">")) {
        throw new IllegalArgumentException(
            "'"
                + expression
                + "' uses ->> or #>>, which PGSync reads as -> or #> of a key starting with '>'"
                + " (a null): use -> or #>, whose value is the JSON value itself");
      }
      if (token.isEmpty()) {
        throw new IllegalArgumentException(
            "'" + expression + "' has an operator without its key or path");
      }
      if (operators.get(i).equals("#>")) {
        steps.add(new Step(true, null, -1, textArray(expression, token)));
      } else if (token.chars().allMatch(c -> c >= '0' && c <= '9') && token.length() < 10) {
        steps.add(new Step(false, null, Integer.parseInt(token), null));
      } else {
        steps.add(new Step(false, token, -1, null));
      }
      name.append('_').append(token.replace("{", "").replace("}", ""));
    }
    return new JsonPath(column, List.copyOf(steps), name.toString());
  }

  /**
   * The value at the path in {@code value} (the column's JSON value), as PostgreSQL's operators
   * give it; null where they give NULL (no such key or element, a scalar on the way).
   */
  public JsonNode apply(JsonNode value) {
    JsonNode at = value;
    for (Step step : steps) {
      if (at == null) {
        return null;
      }
      if (step.path) {
        for (String element : step.elements) {
          at = element(at, element);
          if (at == null) {
            return null;
          }
        }
      } else if (step.key != null) {
        at = at.isObject() ? at.get(step.key) : null;
      } else {
        at = at.isArray() ? at.get(step.index) : null;
      }
    }
    return at;
  }

  /** One element of a {@code #>} path: a key of an object, or an index of an array. */
  private static JsonNode element(JsonNode at, String element) {
    if (at.isObject()) {
      return at.get(element);
    }
    if (!at.isArray()) {
      return null;
    }
    int index;
    try {
      // As strtol reads it: a sign, leading zeros; negative counts from the end.
      index = Integer.parseInt(element.startsWith("+") ? element.substring(1) : element);
    } catch (NumberFormatException e) {
      return null;
    }
    if (index < 0) {
      index += at.size();
    }
    return index < 0 ? null : at.get(index);
  }

  /**
   * The elements of PostgreSQL's text array literal {@code {a, "b c"}}: unquoted ones trimmed,
   * quoted ones as written (a backslash escapes the next character).
   */
  static List<String> textArray(String expression, String literal) {
    String s = literal.trim();
    if (!s.startsWith("{") || !s.endsWith("}")) {
      throw new IllegalArgumentException(
          "'" + expression + "': #> takes a path in braces, {a,b,c}, not " + literal);
    }
    List<String> elements = new ArrayList<>();
    String body = s.substring(1, s.length() - 1);
    if (body.isBlank()) {
      return elements;
    }
    StringBuilder current = new StringBuilder();
    boolean quoted = false;
    boolean wasQuoted = false;
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      if (quoted && c == '\\' && i + 1 < body.length()) {
        current.append(body.charAt(++i));
      } else if (c == '"') {
        if (!quoted && !wasQuoted && current.toString().isBlank()) {
          current.setLength(0); // the space before a quoted element is not part of it
        }
        quoted = !quoted;
        wasQuoted = true;
      } else if (c == ',' && !quoted) {
        elements.add(wasQuoted ? current.toString() : current.toString().trim());
        current.setLength(0);
        wasQuoted = false;
      } else {
        current.append(c);
      }
    }
    if (quoted) {
      throw new IllegalArgumentException("'" + expression + "': an unclosed quote in " + literal);
    }
    elements.add(wasQuoted ? current.toString() : current.toString().trim());
    return List.copyOf(elements);
  }

  @Override
  public String toString() {
    return name;
  }
}
