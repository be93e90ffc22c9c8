package dev.weir.documents.filter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.definition.ValueType;
import dev.weir.documents.value.ValueOrder;
import dev.weir.documents.value.Values;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A node's row filter (weir's extension {@code "weir": {"where": "..."}}): a predicate over the
 * row's columns, with SQL's meaning (a comparison with a null is unknown, and a row is kept only
 * when the predicate is true). Parsed by {@link RowFilterParser}, then {@link #bind bound} to the
 * columns' types, which checks every column and literal; then {@link #matches} tests a row's values
 * in weir's form.
 */
public sealed interface RowFilter extends Serializable {

  /** SQL's three values: true, false, or null for unknown. */
  Boolean test(Function<String, JsonNode> column);

  /** Whether the row is kept: the predicate is true (not false, not unknown). */
  default boolean matches(Function<String, JsonNode> column) {
    return Boolean.TRUE.equals(test(column));
  }

  /** The columns the predicate reads. */
  default Set<String> columns() {
    Set<String> columns = new LinkedHashSet<>();
    collect(columns);
    return columns;
  }

  void collect(Set<String> columns);

  /** This filter with every column's type known, each literal read as its column's type. */
  RowFilter bind(Map<String, String> columnTypes);

  /** Parenthesized where the order of AND and OR needs it. */
  @Override
  String toString();

  // --- the parts of a predicate

  /** A column of the row, or a literal; {@code position} is where it starts in the text (1..). */
  sealed interface Operand extends Serializable {
    int position();
  }

  /** A column; {@code pgType} is null until bound. */
  record Column(String name, int position, String pgType) implements Operand {
    JsonNode value(Function<String, JsonNode> row) {
      JsonNode v = row.apply(name);
      return v == null || v.isNull() ? null : v;
    }

    ValueType type() {
      return ValueType.of(pgType);
    }

    @Override
    public String toString() {
      return name.matches("[a-z_][a-z0-9_$]*") ? name : '"' + name.replace("\"", "\"\"") + '"';
    }
  }

  /**
   * A literal as written: {@code 'text'}, a number, TRUE, FALSE or NULL ({@code value} a JSON text,
   * number, boolean or null); once bound, in its column's form.
   */
  record Literal(JsonNode value, int position) implements Operand {
    @Override
    public String toString() {
      if (value.isTextual()) {
        return "'" + value.textValue().replace("'", "''") + "'";
      }
      return value.isNull() ? "NULL" : value.toString().toUpperCase(Locale.ROOT);
    }
  }

  /** {@code left op right}: =, <>, <, <=, >, >=. */
  record Comparison(Operand left, String op, Operand right) implements RowFilter {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
      JsonNode a = valueOf(left, row);
      JsonNode b = valueOf(right, row);
      if (a == null || b == null) {
        return null;
      }
      int c = ValueOrder.compare(typeOf(left, right), a, b);
      return switch (op) {
        case "=" -> c == 0;
        case "<>" -> c != 0;
        case "<" -> c < 0;
        case "<=" -> c <= 0;
        case ">" -> c > 0;
        default -> c >= 0;
      };
    }

    @Override
    public void collect(Set<String> columns) {
      columnsOf(left, columns);
      columnsOf(right, columns);
    }

    @Override
    public RowFilter bind(Map<String, String> types) {
      Operand l = bindColumn(left, types);
      Operand r = bindColumn(right, types);
      String type = l instanceof Column c ? c.pgType : r instanceof Column c ? c.pgType : null;
      if (type == null) {
        throw new FilterException(left.position(), "compares two literals: name a column");
      }
      if (l instanceof Column a && r instanceof Column b && !sameKind(a.pgType, b.pgType)) {
        throw new FilterException(
            right.position(),
            "compares " + a.name + " (" + a.pgType + ") with " + b.name + " (" + b.pgType + ")");
      }
      ordered(type, l instanceof Column c ? c : (Column) r, op);
      return new Comparison(literalOf(l, type), op, literalOf(r, type));
    }

    @Override
    public String toString() {
      return left + " " + op + " " + right;
    }
  }

  /** {@code operand [NOT] IN (literal, ...)}. */
  record In(Column column, List<Literal> values, boolean negated) implements RowFilter {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
      JsonNode v = column.value(row);
      if (v == null) {
        return null;
      }
      boolean unknown = false;
      for (Literal literal : values) {
        if (literal.value.isNull()) {
          unknown = true;
        } else if (ValueOrder.compare(column.type(), v, literal.value) == 0) {
          return !negated;
        }
      }
      return unknown ? null : negated;
    }

    @Override
    public void collect(Set<String> columns) {
      columns.add(column.name);
    }

    @Override
    public RowFilter bind(Map<String, String> types) {
      Column c = (Column) bindColumn(column, types);
      ordered(c.pgType, c, "IN");
      List<Literal> bound = new ArrayList<>();
      values.forEach(v -> bound.add((Literal) literalOf(v, c.pgType)));
      return new In(c, List.copyOf(bound), negated);
    }

    @Override
    public String toString() {
      List<String> listed = values.stream().map(Literal::toString).toList();
      return column + (negated ? " NOT IN (" : " IN (") + String.join(", ", listed) + ")";
    }
  }

  /** {@code column IS [NOT] NULL}. */
  record IsNull(Column column, boolean negated) implements RowFilter {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
      return (column.value(row) == null) != negated;
    }

    @Override
    public void collect(Set<String> columns) {
      columns.add(column.name);
    }

    @Override
    public RowFilter bind(Map<String, String> types) {
      return new IsNull((Column) bindColumn(column, types), negated);
    }

    @Override
    public String toString() {
      return column + (negated ? " IS NOT NULL" : " IS NULL");
    }
  }

  /** A boolean column on its own: {@code is_active}. */
  record Truth(Column column) implements RowFilter {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
      JsonNode v = column.value(row);
      return v == null ? null : v.asBoolean();
    }

    @Override
    public void collect(Set<String> columns) {
      columns.add(column.name);
    }

    @Override
    public RowFilter bind(Map<String, String> types) {
      Column c = (Column) bindColumn(column, types);
      if (c.type() != ValueType.BOOLEAN || ValueType.isArray(c.pgType)) {
        throw new FilterException(
            c.position, c.name + " is " + c.pgType + ", not a boolean: compare it with a value");
      }
      return new Truth(c);
    }

    @Override
    public String toString() {
      return column.toString();
    }
  }

  record Not(RowFilter operand) implements RowFilter {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
      Boolean v = operand.test(row);
      return v == null ? null : !v;
    }

    @Override
    public void collect(Set<String> columns) {
      operand.collect(columns);
    }

    @Override
    public RowFilter bind(Map<String, String> types) {
      return new Not(operand.bind(types));
    }

    @Override
    public String toString() {
      return "NOT " + grouped(operand);
    }
  }

  /** AND ({@code and} true) or OR of two predicates, with SQL's unknown. */
  record Both(RowFilter left, RowFilter right, boolean and) implements RowFilter {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
      Boolean a = left.test(row);
      if (a != null && a != and) {
        return a; // false AND x, true OR x
      }
      Boolean b = right.test(row);
      if (b != null && b != and) {
        return b;
      }
      return a == null || b == null ? null : and;
    }

    @Override
    public void collect(Set<String> columns) {
      left.collect(columns);
      right.collect(columns);
    }

    @Override
    public RowFilter bind(Map<String, String> types) {
      return new Both(left.bind(types), right.bind(types), and);
    }

    @Override
    public String toString() {
      return side(left) + (and ? " AND " : " OR ") + side(right);
    }

    private String side(RowFilter f) {
      return f instanceof Both b && b.and != and ? "(" + f + ")" : f.toString();
    }
  }

  private static String grouped(RowFilter f) {
    return f instanceof Both ? "(" + f + ")" : f.toString();
  }

  private static void columnsOf(Operand o, Set<String> columns) {
    if (o instanceof Column c) {
      columns.add(c.name);
    }
  }

  private static JsonNode valueOf(Operand o, Function<String, JsonNode> row) {
    if (o instanceof Column c) {
      return c.value(row);
    }
    JsonNode v = ((Literal) o).value;
    return v.isNull() ? null : v;
  }

  private static ValueType typeOf(Operand left, Operand right) {
    return ((Column) (left instanceof Column ? left : right)).type();
  }

  private static Operand bindColumn(Operand o, Map<String, String> types) {
    if (!(o instanceof Column c)) {
      return o;
    }
    String type = types.get(c.name);
    if (type == null) {
      throw new FilterException(
          c.position,
          "'"
              + c.name
              + "' is not a column of the node (it has "
              + String.join(", ", types.keySet())
              + ")");
    }
    return new Column(c.name, c.position, type);
  }

  /**
   * A literal in its column's form: {@code '2024-01-02'} for a date, {@code '5'} for an integer.
   */
  private static Operand literalOf(Operand o, String pgType) {
    if (!(o instanceof Literal l) || l.value.isNull()) {
      return o;
    }
    ValueType type = ValueType.of(pgType);
    boolean numeric =
        type == ValueType.INTEGER || type == ValueType.DECIMAL || type == ValueType.FLOAT;
    if (l.value.isNumber() && !numeric || l.value.isBoolean() && type != ValueType.BOOLEAN) {
      throw new FilterException(l.position, l + " is not a value of a " + pgType + " column");
    }
    Object raw;
    if (l.value.isNumber()) {
      raw = l.value.decimalValue();
    } else if (l.value.isBoolean()) {
      raw = l.value.booleanValue();
    } else {
      String text = l.value.textValue();
      // PostgreSQL reads a date alone as midnight of a timestamp.
      boolean timestamp = type == ValueType.TIMESTAMP || type == ValueType.TIMESTAMPTZ;
      raw = timestamp && text.trim().length() <= 10 ? text.trim() + "T00:00" : text;
    }
    try {
      return new Literal(Values.normalize("literal", raw, pgType), l.position);
    } catch (IllegalArgumentException e) {
      throw new FilterException(l.position, l + " is not a value of a " + pgType + " column");
    }
  }

  /** Refuses an order on values that have none here (json, arrays). */
  private static void ordered(String pgType, Column c, String op) {
    if (ValueType.isArray(pgType) || !ValueOrder.isOrdered(ValueType.of(pgType))) {
      throw new FilterException(
          c.position, c.name + " is " + pgType + ": " + op + " does not apply; IS NULL does");
    }
  }

  /** Two column types whose values compare: both numbers, both text, or one type. */
  private static boolean sameKind(String a, String b) {
    ValueType x = ValueType.of(a);
    ValueType y = ValueType.of(b);
    return kind(x) == kind(y) && ValueType.isArray(a) == ValueType.isArray(b);
  }

  private static Object kind(ValueType t) {
    return switch (t) {
      case INTEGER, DECIMAL, FLOAT -> BigDecimal.class;
      case TEXT, KEYWORD -> String.class;
      default -> t;
    };
  }

  /** A filter that is not valid: where in its text, and why. */
  final class FilterException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final int position;

    public FilterException(int position, String message) {
      super(message);
      this.position = position;
    }

    public int position() {
      return position;
    }
  }
}
