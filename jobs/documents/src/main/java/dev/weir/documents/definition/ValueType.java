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
  /** json, jsonb: the JSON value (an object is indexed as a flattened field). */
  JSON("flattened"),
  /** timestamp with time zone: ISO-8601 in UTC. */
  TIMESTAMPTZ("date"),
  /** timestamp without time zone: ISO-8601 local date-time. */
  TIMESTAMP("date"),
  /** date: ISO-8601 date. */
  DATE("date");

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
      default -> KEYWORD;
    };
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
