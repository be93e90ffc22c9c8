package dev.weir.search;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.common.DeadLetters;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.Json;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

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
    if (v instanceof Number n) {
      return n.longValue();
    }
    try {
      return Long.parseLong(v.toString());
    } catch (NumberFormatException e) {
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
    if (v instanceof Number n) {
      long x = n.longValue();
      // Debezium's MicroTimestamp vs Kafka Connect's Timestamp (milliseconds).
      return (Math.abs(x) > 100_000_000_000_000L
              ? Instant.ofEpochSecond(x / 1_000_000, (x % 1_000_000) * 1_000)
              : Instant.ofEpochMilli(x))
          .toString();
    }
    try {
      return Instant.parse(v.toString()).toString();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("'" + column + "' is not a timestamp: " + v);
    }
  }

  /** What a change event of one table becomes; an event it cannot read goes to the DLQ. */
  @FunctionalInterface
  interface Reader<T> extends java.io.Serializable {
    T read(ChangeEvent e);
  }

  /** Reads each change event of a table, sending unreadable ones to the DLQ with the reason. */
  static final class Read<T> extends ProcessFunction<ChangeEvent, T> {
    private static final long serialVersionUID = 1L;
    private final String job;
    private final String topic;
    private final Reader<T> reader;
    private transient EventCodec<ChangeEvent> codec;

    Read(String job, String topic, Reader<T> reader) {
      this.job = job;
      this.topic = topic;
      this.reader = reader;
    }

    @Override
    public void open(OpenContext openContext) {
      codec = EventCodec.of(EventSchema.CDC_CATALOG, ChangeEvent.class);
    }

    @Override
    public void processElement(ChangeEvent e, Context ctx, Collector<T> out) {
      if ("t".equals(e.op()) || "m".equals(e.op())) {
        return; // truncate and logical-decoding messages carry no row
      }
      T value;
      try {
        value = reader.read(e);
      } catch (IllegalArgumentException | ClassCastException bad) {
        ctx.output(
            DeadLetters.TAG,
            DeadLetters.rejected(
                job, topic, codec.encode(e), "unreadable change event: " + bad.getMessage()));
        return;
      }
      out.collect(value);
    }
  }
}
