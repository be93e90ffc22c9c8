package dev.weir.documents.definition;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How weir reads, compares and indexes a column, from its PostgreSQL type. Every value is
 * normalized to one form whichever Debezium writer sent it, so that a key or a foreign key compares
 * equal on both sides of a join and a document's hash depends on values, not on encodings.
 */
public enum ValueType {
  /** smallint, integer, bigint: a JSON integer; 1.5 or 2^64 are refused. */
  INTEGER("long"),
  /** numeric: exact, as a JSON number without trailing zeros. */
  DECIMAL("double"),
  /** real, double precision. */
  FLOAT("double"),
  BOOLEAN("boolean"),
  /** text, varchar: full text and a keyword. */
  TEXT("text"),
  /** uuid, char(n), enums, anything else: an exact string. */
  KEYWORD("keyword"),
  /**
   * json, jsonb: the JSON value, of any shape; kept in {@code _source} unindexed unless the
   * definition maps it (a {@code flattened} field takes objects only).
   */
  JSON("object"),
  /** timestamp with time zone: ISO-8601 in UTC. */
  TIMESTAMPTZ("date"),
  /** timestamp without time zone: ISO-8601 local date-time. */
  TIMESTAMP("date"),
  /** date: ISO-8601 date, as PostgreSQL writes it (a year past 9999, {@code BC}, infinity). */
  DATE("date"),
  /** time without time zone: {@code 13:14:15.5}, as PostgreSQL writes it. */
  TIME("keyword"),
  /** time with time zone: in UTC, {@code 11:14:15.5Z}. */
  TIMETZ("keyword"),
  /** interval: ISO-8601, as PostgreSQL's iso_8601 style writes it ({@code P1Y2M3DT4H5M6.5S}). */
  INTERVAL("keyword"),
  /** bytea: PostgreSQL's hex form, {@code \x0102ff}. */
  BYTEA("keyword");

  /** The Elasticsearch field type a column of this type is mapped to. */
  public final String elasticsearchType;

  ValueType(String elasticsearchType) {
    this.elasticsearchType = elasticsearchType;
  }

  /**
   * The type of a column from {@code format_type}'s name, e.g. {@code numeric(14,4)}, {@code
   * text[]}.
   */
  public static ValueType of(String pgType) {
    // Asked for every value the job normalizes: the few type names of a definition, parsed once.
    return OF_TYPE_NAME.computeIfAbsent(pgType, ValueType::parse);
  }

  private static final Map<String, ValueType> OF_TYPE_NAME = new ConcurrentHashMap<>();

  private static ValueType parse(String pgType) {
    // "timestamp(3) with time zone", "numeric(14,4)": the type without its modifier.
    String base = element(pgType).replaceAll("\\([^)]*\\)", "").replaceAll("\\s+", " ").trim();
    return switch (base) {
      case "smallint", "integer", "bigint", "int2", "int4", "int8", "int", "serial", "bigserial" ->
          INTEGER;
      case "numeric", "decimal" -> DECIMAL;
      case "real", "double precision", "float4", "float8" -> FLOAT;
      case "boolean", "bool" -> BOOLEAN;
      case "text", "character varying", "varchar", "citext", "name" -> TEXT;
      case "json", "jsonb" -> JSON;
      case "timestamp with time zone", "timestamptz" -> TIMESTAMPTZ;
      case "timestamp without time zone", "timestamp" -> TIMESTAMP;
      case "date" -> DATE;
      case "time without time zone", "time" -> TIME;
      case "time with time zone", "timetz" -> TIMETZ;
      case "bytea" -> BYTEA;
      default -> base.startsWith("interval") ? INTERVAL : KEYWORD;
    };
  }

  /**
   * The fractional digits of a time or timestamp type, {@code timestamp(3) without time zone} → 3;
   * 6 (PostgreSQL's default, microseconds) when it names none.
   */
  public static int precision(String pgType) {
    int open = pgType.indexOf('(');
    int close = pgType.indexOf(')', open + 1);
    if (open < 0 || close < 0) {
      return 6;
    }
    try {
      return Integer.parseInt(pgType.substring(open + 1, close).trim());
    } catch (NumberFormatException e) {
      return 6;
    }
  }

  /** Whether the type is an array of values ({@code text[]}). */
  public static boolean isArray(String pgType) {
    return pgType.trim().endsWith("[]");
  }

  private static String element(String pgType) {
    String t = pgType.trim().toLowerCase(Locale.ROOT);
    while (t.endsWith("[]")) {
      t = t.substring(0, t.length() - 2);
    }
    return t;
  }
}
