package dev.weir.search;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.common.kafka.DecodingDeserializer;
import dev.weir.common.postgres.Timestamps;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.Json;
import dev.weir.search.join.ChangeRows;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * Reading the rows of Debezium change events, whichever writer produced them (weir's cdc-catalog,
 * Debezium Server, Kafka Connect): numbers may arrive as ints, longs or strings, jsonb as text or
 * as an object, timestamps as ISO text or epoch micro/milliseconds.
 */
final class CatalogChanges {

  private CatalogChanges() {}

  /** The row an event is about: {@code after}, or {@code before} for a delete. */
  static Map<String, Object> row(ChangeEvent e) {
    Map<String, Object> values = e.isDelete() ? e.before() : e.after();
    if (values == null) {
      throw new IllegalArgumentException(
          "op '" + e.op() + "' without '" + (e.isDelete() ? "before" : "after") + "'");
    }
    return values;
  }

  /**
   * Orders versions of one catalog row and of rows of one database: the change's log sequence
   * number. A snapshot read (no LSN) is older than any change.
   */
  static long stamp(ChangeEvent e) {
    Object lsn = e.source() == null ? null : e.source().get("lsn");
    return lsn instanceof Number n && !"r".equals(e.op()) ? n.longValue() : 0L;
  }

  static long id(Map<String, Object> values, String column) {
    Long id = optionalId(values, column);
    if (id == null) {
      throw new IllegalArgumentException("no '" + column + "' in the row");
    }
    return id;
  }

  static Long optionalId(Map<String, Object> values, String column) {
    Object v = values.get(column);
    if (v == null) {
      return null;
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short) {
      return ((Number) v).longValue();
    }
    // Anything else exactly: 2^64 + 1 or 1.5 must not become another product (longValue() would).
    try {
      return new BigDecimal(v.toString()).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("'" + column + "' is not an integer: " + v);
    }
  }

  static String text(Map<String, Object> values, String column) {
    Object v = values.get(column);
    return v == null ? null : v.toString();
  }

  static boolean unavailable(Map<String, Object> values, String column) {
    return ChangeEvent.UNAVAILABLE_VALUE.equals(values.get(column));
  }

  /** A jsonb column as JSON text: Debezium sends it as text, some converters as an object. */
  static String json(Map<String, Object> values, String column) {
    Object v = values.get(column);
    if (v == null) {
      return null;
    }
    try {
      JsonNode node =
          v instanceof String s ? Json.mapper().readTree(s) : Json.mapper().valueToTree(v);
      return Json.mapper().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("'" + column + "' is not JSON: " + e.getOriginalMessage());
    }
  }

  /** A timestamptz column as ISO-8601 UTC. */
  static String timestamp(Map<String, Object> values, String column) {
    Object v = values.get(column);
    if (v == null) {
      return null;
    }
    Instant time;
    if (v instanceof Number n) {
      long x = n.longValue();
      // Debezium's MicroTimestamp vs Kafka Connect's Timestamp (milliseconds).
      time =
          Math.abs(x) > 100_000_000_000_000L
              ? Instant.ofEpochSecond(x / 1_000_000, (x % 1_000_000) * 1_000)
              : Instant.ofEpochMilli(x);
    } else {
      try {
        time = Instant.parse(v.toString());
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("'" + column + "' is not a timestamp: " + v);
      }
    }
    try {
      Timestamps.checkedYear(time.atOffset(ZoneOffset.UTC).getYear());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + column + "' " + e.getMessage() + ": " + v);
    }
    return time.toString();
  }

  /** The event's table as {@code schema.table}, from its source block. */
  private static String table(ChangeEvent e) {
    Object schema = e.source() == null ? null : e.source().get("schema");
    return e.table() == null
        ? "the catalog table"
        : (schema == null ? "public" : schema.toString()) + "." + e.table();
  }

  /** What a change event of one table becomes; an event it cannot read goes to the DLQ. */
  @FunctionalInterface
  interface Reader<T> extends java.io.Serializable {
    T read(ChangeEvent e);
  }

  /**
   * Reads each change event of a table as it is decoded: an event it cannot read goes to the DLQ
   * with the reason and its raw record, a logical-decoding message (no row) is skipped.
   */
  static <T> DecodingDeserializer.Conversion<ChangeEvent, T> rows(Reader<T> reader) {
    return e -> {
      if ("m".equals(e.op())) {
        return null;
      }
      if ("t".equals(e.op())) {
        throw new InvalidEventException(
            ChangeRows.truncateNotApplied(table(e), "search-index.md#truncate"));
      }
      try {
        return reader.read(e);
      } catch (IllegalArgumentException | ClassCastException bad) {
        throw new InvalidEventException("unreadable change event: " + bad.getMessage());
      }
    };
  }
}
