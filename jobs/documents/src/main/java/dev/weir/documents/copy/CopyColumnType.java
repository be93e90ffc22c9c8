package dev.weir.documents.copy;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of a copy column from its source column's type, as PostgreSQL's {@code format_type}
 * names it, so that an existing copy's columns compare by text. The copy may live in another
 * database than the source: a type that database may not have (an enum, a domain, an extension's
 * type) is kept as {@code text}, which holds weir's JSON form of it exactly.
 */
final class CopyColumnType {

  /** Built-in types whose weir JSON form PostgreSQL reads back as the same value. */
  private static final Set<String> BUILT_IN =
      Set.of(
          "smallint",
          "integer",
          "bigint",
          "numeric",
          "real",
          "double precision",
          "boolean",
          "text",
          "character varying",
          "character",
          "uuid",
          "json",
          "jsonb",
          "timestamp with time zone",
          "timestamp without time zone",
          "date",
          "time with time zone",
          "time without time zone",
          "interval",
          "bytea");

  /** Other spellings PostgreSQL accepts, to the name format_type prints. */
  private static final Map<String, String> ALIASES =
      Map.ofEntries(
          Map.entry("int2", "smallint"),
          Map.entry("int", "integer"),
          Map.entry("int4", "integer"),
          Map.entry("serial", "integer"),
          Map.entry("int8", "bigint"),
          Map.entry("bigserial", "bigint"),
          Map.entry("decimal", "numeric"),
          Map.entry("float4", "real"),
          Map.entry("float8", "double precision"),
          Map.entry("bool", "boolean"),
          Map.entry("varchar", "character varying"),
          Map.entry("char", "character"),
          Map.entry("bpchar", "character"),
          Map.entry("timestamptz", "timestamp with time zone"),
          Map.entry("timestamp", "timestamp without time zone"),
          Map.entry("timetz", "time with time zone"),
          Map.entry("time", "time without time zone"));

  /** {@code name(modifier) rest}, e.g. {@code timestamp(3) with time zone}. */
  private static final Pattern TYPE =
      Pattern.compile("([a-z0-9_ ]+)(\\( ?\\d+(?: ?, ?\\d+)? ?\\))?([a-z ]*)");

  /**
   * A type as format_type prints it: {@code numeric(12,2)}, {@code timestamp(3) with time zone}.
   */
  private static final Pattern PRINTED =
      Pattern.compile(
          "([a-z ]+?)(?:\\((\\d+)(?:,(\\d+))?\\))?( with time zone| without time zone)?");

  /** The most decimal digits a value of each integer type has. */
  private static final Map<String, Integer> INTEGER_DIGITS =
      Map.of("smallint", 5, "integer", 10, "bigint", 19);

  private CopyColumnType() {}

  /** The copy column's type for a source column of type {@code pgType}. */
  static String of(String pgType) {
    String type = pgType.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
    String array = "";
    while (type.endsWith("[]")) {
      array += "[]";
      type = type.substring(0, type.length() - 2).trim();
    }
    Matcher m = TYPE.matcher(type);
    if (!m.matches()) {
      return "text" + array;
    }
    String base = (m.group(1) + " " + m.group(3)).replaceAll("\\s+", " ").trim();
    base = ALIASES.getOrDefault(base, base);
    // An interval's fields (interval year to month) restrict what it holds, not how it is written.
    if (!BUILT_IN.contains(base) && !base.startsWith("interval ")) {
      return "text" + array;
    }
    String modifier = m.group(2) == null ? "" : m.group(2).replace(" ", "");
    for (String timed : new String[] {"timestamp", "time"}) {
      if (base.startsWith(timed + " ")) {
        // format_type puts the precision after the name: timestamp(3) with time zone.
        return timed + modifier + base.substring(timed.length()) + array;
      }
    }
    return base + modifier + array;
  }

  /**
   * Whether a copy column of type {@code from} may become {@code to} (both as {@link #of} and
   * format_type print them) without any value it holds changing: a larger integer, a numeric with
   * at least as many digits on either side of the point, double precision for real, a longer or
   * unbounded varchar or text, a longer char, a time or timestamp with more fractional digits; an
   * array of such elements. Equal types are no widening; nor is any other change.
   */
  static boolean widens(String from, String to) {
    if (from.equals(to)) {
      return false;
    }
    boolean array = from.endsWith("[]");
    if (array != to.endsWith("[]")) {
      return false;
    }
    if (array) {
      return widens(from.substring(0, from.length() - 2), to.substring(0, to.length() - 2));
    }
    Matcher f = PRINTED.matcher(from);
    Matcher t = PRINTED.matcher(to);
    if (!f.matches() || !t.matches()) {
      return false;
    }
    String fromBase = f.group(1) + (f.group(4) == null ? "" : f.group(4));
    String toBase = t.group(1) + (t.group(4) == null ? "" : t.group(4));
    Integer fromDigits = INTEGER_DIGITS.get(fromBase);
    if (fromDigits != null) {
      Integer toDigits = INTEGER_DIGITS.get(toBase);
      return toDigits != null
          ? toDigits > fromDigits
          : toBase.equals("numeric") && integerDigits(t, Integer.MAX_VALUE) >= fromDigits;
    }
    if (!fromBase.equals(toBase)) {
      return switch (fromBase) {
        case "real" -> toBase.equals("double precision");
        case "character varying" -> toBase.equals("text");
        default -> false;
      };
    }
    return switch (fromBase) {
      case "numeric" ->
          t.group(2) == null
              || f.group(2) != null
                  && scale(t) >= scale(f)
                  && integerDigits(t, 0) >= integerDigits(f, 0);
      case "character varying", "character" ->
          t.group(2) == null
              ? fromBase.equals("character varying")
              : f.group(2) != null && length(t) > length(f);
      case "timestamp with time zone",
          "timestamp without time zone",
          "time with time zone",
          "time without time zone" ->
          precision(t) > precision(f);
      default -> false;
    };
  }

  /** A numeric's digits before the point; {@code unbounded} for a numeric without precision. */
  private static int integerDigits(Matcher numeric, int unbounded) {
    return numeric.group(2) == null ? unbounded : length(numeric) - scale(numeric);
  }

  private static int scale(Matcher numeric) {
    return numeric.group(3) == null ? 0 : Integer.parseInt(numeric.group(3));
  }

  private static int length(Matcher type) {
    return Integer.parseInt(type.group(2));
  }

  /** A time's fractional digits: 6 (microseconds) when the type names none. */
  private static int precision(Matcher time) {
    return time.group(2) == null ? 6 : Integer.parseInt(time.group(2));
  }
}
