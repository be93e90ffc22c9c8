package dev.weir.documents.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.weir.documents.filter.RowFilter.Column;
import dev.weir.documents.filter.RowFilter.FilterException;
import dev.weir.documents.filter.RowFilter.Literal;
import dev.weir.documents.filter.RowFilter.Operand;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a row filter, a small part of SQL's WHERE over one row:
 *
 * <pre>
 * filter     = or
 * or         = and { OR and }
 * and        = not { AND not }
 * not        = NOT not | primary
 * primary    = ( filter ) | column IS [NOT] NULL | column [NOT] IN ( literal {, literal} )
 *            | operand op operand | boolean column
 * op         = = | <> | != | < | <= | > | >=
 * operand    = column | literal
 * literal    = 'text' ('' for a quote) | number | TRUE | FALSE | NULL
 * column     = name | "quoted name"
 * </pre>
 *
 * No function and no subquery: a filter tests the row's own values, which is all the stream has.
 * Keywords are case-insensitive. A mistake is a {@link FilterException} at its position (1..).
 */
public final class RowFilterParser {

  private static final Set<String> KEYWORDS =
      Set.of("AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE");

  private final String text;
  private int at;

  private RowFilterParser(String text) {
    this.text = text;
  }

  /** The filter of {@code text}, its columns not yet bound to types. */
  public static RowFilter parse(String text) {
    RowFilterParser p = new RowFilterParser(text);
    p.space();
    if (p.at >= text.length()) {
      throw new FilterException(1, "is empty");
    }
    RowFilter f = p.or();
    p.space();
    if (p.at < text.length()) {
      throw new FilterException(p.at + 1, "unexpected '" + p.rest() + "'");
    }
    return f;
  }

  private RowFilter or() {
    RowFilter f = and();
    while (keyword("OR")) {
      f = new RowFilter.Both(f, and(), false);
    }
    return f;
  }

  private RowFilter and() {
    RowFilter f = not();
    while (keyword("AND")) {
      f = new RowFilter.Both(f, not(), true);
    }
    return f;
  }

  private RowFilter not() {
    return keyword("NOT") ? new RowFilter.Not(not()) : primary();
  }

  private RowFilter primary() {
    space();
    if (symbol("(")) {
      RowFilter f = or();
      expect(")");
      return f;
    }
    int start = at;
    Operand left = operand();
    if (keyword("IS")) {
      boolean negated = keyword("NOT");
      if (!keyword("NULL")) {
        throw new FilterException(at + 1, "expected NULL or NOT NULL after IS");
      }
      return new RowFilter.IsNull(column(left), negated);
    }
    int before = at;
    boolean negated = keyword("NOT");
    if (keyword("IN")) {
      expect("(");
      List<Literal> values = new ArrayList<>();
      do {
        space();
        int position = at + 1;
        if (!(operand() instanceof Literal l)) {
          throw new FilterException(position, "IN takes literals, not columns");
        }
        values.add(l);
      } while (symbol(","));
      expect(")");
      return new RowFilter.In(column(left), List.copyOf(values), negated);
    }
    if (negated) {
      throw new FilterException(before + 1, "expected IN after NOT");
    }
    String op = operator();
    if (op == null) {
      if (left instanceof Column c) {
        return new RowFilter.Truth(c);
      }
      throw new FilterException(start + 1, "a literal alone is not a condition");
    }
    space();
    return new RowFilter.Comparison(left, op, operand());
  }

  private static Column column(Operand o) {
    if (o instanceof Column c) {
      return c;
    }
    throw new FilterException(o.position(), "expected a column, not " + o);
  }

  private Operand operand() {
    space();
    int position = at + 1;
    if (at >= text.length()) {
      throw new FilterException(position, "expected a column or a value at the end");
    }
    char c = text.charAt(at);
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (c == '\'') {
      StringBuilder s = new StringBuilder();
      at++;
      while (true) {
        if (at >= text.length()) {
          throw new FilterException(position, "a text without its closing quote");
        }
        char d = text.charAt(at++);
        if (d == '\'') {
          if (at < text.length() && text.charAt(at) == '\'') {
            s.append('\'');
            at++;
          } else {
            break;
          }
        } else {
          s.append(d);
        }
      }
      return new Literal(nodes.textNode(s.toString()), position);
    }
    if (c == '-' || c == '+' || c == '.' || Character.isDigit(c)) {
      int start = at++;
      while (at < text.length() && "0123456789.eE+-".indexOf(text.charAt(at)) >= 0) {
        if ((text.charAt(at) == '+' || text.charAt(at) == '-')
            && Character.toUpperCase(text.charAt(at - 1)) != 'E') {
          break;
        }
        at++;
      }
      try {
        JsonNode n = nodes.numberNode(new BigDecimal(text.substring(start, at)));
        return new Literal(n, position);
      } catch (NumberFormatException e) {
        throw new FilterException(position, "'" + text.substring(start, at) + "' is not a number");
      }
    }
    if (c == '"') {
      int close = text.indexOf('"', at + 1);
      while (close > 0 && close + 1 < text.length() && text.charAt(close + 1) == '"') {
        close = text.indexOf('"', close + 2);
      }
      if (close < 0) {
        throw new FilterException(position, "a quoted name without its closing quote");
      }
      String name = text.substring(at + 1, close).replace("\"\"", "\"");
      at = close + 1;
      return new Column(name, position, null);
    }
    String word = word();
    if (word == null) {
      throw new FilterException(position, "expected a column or a value, not '" + rest() + "'");
    }
    switch (word.toUpperCase(Locale.ROOT)) {
      case "TRUE", "FALSE" -> {
        return new Literal(nodes.booleanNode(word.equalsIgnoreCase("TRUE")), position);
      }
      case "NULL" -> {
        return new Literal(nodes.nullNode(), position);
      }
      default -> {
        if (KEYWORDS.contains(word.toUpperCase(Locale.ROOT))) {
          throw new FilterException(position, "expected a column or a value, not " + word);
        }
        return new Column(word, position, null);
      }
    }
  }

  /** A comparison operator, or null. */
  private String operator() {
    space();
    for (String op : new String[] {"<=", ">=", "<>", "!=", "=", "<", ">"}) {
      if (text.startsWith(op, at)) {
        at += op.length();
        return op.equals("!=") ? "<>" : op;
      }
    }
    return null;
  }

  /** A name: letters, digits, _ and $, not starting with a digit; null if none here. */
  private String word() {
    int start = at;
    while (at < text.length()) {
      char c = text.charAt(at);
      if (Character.isLetter(c) || c == '_' || (at > start && (Character.isDigit(c) || c == '$'))) {
        at++;
      } else {
        break;
      }
    }
    return at > start ? text.substring(start, at) : null;
  }

  private boolean keyword(String keyword) {
    space();
    int start = at;
    String word = word();
    if (word != null && word.equalsIgnoreCase(keyword)) {
      return true;
    }
    at = start;
    return false;
  }

  private boolean symbol(String s) {
    space();
    if (text.startsWith(s, at)) {
      at += s.length();
      return true;
    }
    return false;
  }

  private void expect(String s) {
    if (!symbol(s)) {
      throw new FilterException(
          at + 1, "expected '" + s + "'" + (at < text.length() ? ", not '" + rest() + "'" : ""));
    }
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private String rest() {
    String r = text.substring(at);
    return r.length() > 20 ? r.substring(0, 20) + "…" : r;
  }
}
