package dev.weir.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Bytes ↔ event for one topic: size limit, JSON parse, JSON Schema validation, binding. Every way a
 * record can fail becomes an {@link InvalidEventException} with a reason a person can act on.
 * {@code tracking.events} and {@code activity.events} first try one streaming pass ({@link
 * TrackingEventReader}, {@link ActivityEventReader}), which keeps the free-form object as JSON
 * bytes ({@link RawJsonObject}); what it does not accept is read the long way, so verdicts and
 * reasons are the same.
 *
 * <p>Serializable so that Flink functions can hold one; the schema is loaded lazily per instance.
 */
public final class EventCodec<T> implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Records larger than this are rejected unread (configurable per codec). */
  public static final int DEFAULT_MAX_BYTES = 1 << 20;

  /** How many schema violations a reason lists; it says how many more there were. */
  public static final int MAX_VIOLATIONS_IN_REASON = 10;

  private final EventSchema schema;
  private final Class<T> type;
  private final int maxBytes;
  private transient JsonSchema jsonSchema;

  private EventCodec(EventSchema schema, Class<T> type, int maxBytes) {
    // Any event object binds as a declared row: a declared topic node may have its events
    // checked against one of weir's schemas (its "weir.event_schema").
    if (!schema.javaType().equals(type) && type != DeclaredRow.class) {
      throw new IllegalArgumentException(schema + " is read as " + schema.javaType().getName());
    }
    this.schema = schema;
    this.type = type;
    this.maxBytes = maxBytes;
  }

  public static <T> EventCodec<T> of(EventSchema schema, Class<T> type) {
    return new EventCodec<>(schema, type, DEFAULT_MAX_BYTES);
  }

  public EventCodec<T> withMaxBytes(int maxBytes) {
    return new EventCodec<>(schema, type, maxBytes);
  }

  public EventSchema schema() {
    return schema;
  }

  /** Records longer than this are rejected unread. */
  public int maxBytes() {
    return maxBytes;
  }

  public T decode(byte[] bytes) throws InvalidEventException {
    if (bytes == null || bytes.length == 0) {
      throw new InvalidEventException(
          "empty record: expected a JSON " + schema.family() + " event");
    }
    if (bytes.length > maxBytes) {
      throw new InvalidEventException(
          "record of " + bytes.length + " bytes is over the limit of " + maxBytes + " bytes");
    }
    // The plain valid form in one streaming pass; anything else the long way, for its reason.
    // (Not for a declared row checked against one of these schemas: it binds as a row.)
    Object plain =
        type != schema.javaType()
            ? null
            : switch (schema) {
              case TRACKING_EVENTS -> TrackingEventReader.read(bytes);
              case ACTIVITY_EVENTS -> ActivityEventReader.read(bytes);
              default -> null;
            };
    if (plain != null) {
      return type.cast(plain);
    }
    JsonNode node;
    try {
      node = Json.mapper().readTree(bytes);
    } catch (IOException e) {
      throw new InvalidEventException("not valid JSON: " + firstLine(e.getMessage()), e);
    }
    return decode(node);
  }

  public T decode(JsonNode node) throws InvalidEventException {
    String nul = nulAt(node, "$");
    if (nul != null) {
      // Valid JSON ("\u0000"), but PostgreSQL text and jsonb cannot hold it: the write would fail
      // and restart the job forever.
      throw new InvalidEventException(
          nul + " contains U+0000 (NUL), which PostgreSQL cannot store");
    }
    List<String> violations = SchemaCatalog.violations(jsonSchema(), node);
    if (!violations.isEmpty()) {
      throw new InvalidEventException(
          "violates "
              + schema.family()
              + " v"
              + SchemaCatalog.currentVersion(schema)
              + ": "
              + firstViolations(violations));
    }
    // Kafka Connect / Debezium Server with schemas.enable=true wrap the envelope.
    JsonNode payload =
        schema == EventSchema.CDC_CATALOG && node.has("payload") ? node.get("payload") : node;
    try {
      return Json.mapper().treeToValue(payload, type);
    } catch (JsonProcessingException e) {
      throw new InvalidEventException(
          "cannot read as " + schema.family() + ": " + firstLine(e.getOriginalMessage()), e);
    }
  }

  public byte[] encode(T value) {
    try {
      return Json.mapper().writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot write " + schema.family() + " event", e);
    }
  }

  /**
   * The first {@link #MAX_VIOLATIONS_IN_REASON} violations, then how many more: a record with
   * 60,000 unknown fields has 60,000, and every one joined made a reason of megabytes.
   */
  static String firstViolations(List<String> violations) {
    if (violations.size() <= MAX_VIOLATIONS_IN_REASON) {
      return String.join("; ", violations);
    }
    return String.join("; ", violations.subList(0, MAX_VIOLATIONS_IN_REASON))
        + "; … and "
        + (violations.size() - MAX_VIOLATIONS_IN_REASON)
        + " more";
  }

  /** The path of the first string or field name holding a NUL character, or null. */
  private static String nulAt(JsonNode node, String path) {
    if (node.isTextual()) {
      return node.textValue().indexOf('\u0000') >= 0 ? path : null;
    }
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String found = nulAt(node.get(i), path + "[" + i + "]");
        if (found != null) {
          return found;
        }
      }
    }
    for (var fields = node.fields(); fields.hasNext(); ) {
      var field = fields.next();
      if (field.getKey().indexOf('\u0000') >= 0) {
        return path + " (a field name)";
      }
      String found = nulAt(field.getValue(), path + "." + field.getKey());
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  private JsonSchema jsonSchema() {
    if (jsonSchema == null) {
      jsonSchema = SchemaCatalog.load(schema);
    }
    return jsonSchema;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "(no detail)";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
