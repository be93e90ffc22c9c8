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
}
