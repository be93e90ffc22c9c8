package dev.weir.schema;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.time.Instant;

/**
 * {@code activity.events} read in one streaming pass, straight into an {@link ActivityEvent} whose
 * {@code details} are a {@link RawJsonObject} holding the JSON that Jackson writes for the map the
 * long way binds (so a detail's stored text does not depend on the path). It accepts only what the
 * schema surely accepts: the known fields once each, strings within their lengths and without NUL,
 * an {@code occurred_at} of the plain form, details of at most 16 distinct keys whose values are
 * short strings (in the Basic Multilingual Plane), integers, booleans or null. Anything else
 * (decimals among them, whose binding normalises them) returns null, and {@link EventCodec} reads
 * the record the long way, which gives the reason. So the fast path changes no verdict and no
 * reason, only the cost of valid events.
 */
final class ActivityEventReader {

  private static final int EVENT_ID = 1;
  private static final int WORKSPACE_ID = 2;
  private static final int ACTOR_ID = 4;
  private static final int ELEMENT_TYPE = 8;
  private static final int ELEMENT_ID = 16;
  private static final int ACTION = 32;
  private static final int OCCURRED_AT = 64;
  private static final int DETAILS = 128;
  private static final int REQUIRED =
      EVENT_ID | WORKSPACE_ID | ACTOR_ID | ELEMENT_TYPE | ELEMENT_ID | ACTION | OCCURRED_AT;

  /** The schema's {@code maxProperties} and string {@code maxLength} of details. */
  private static final int MAX_DETAILS = 16;

  private static final int MAX_DETAIL_TEXT = 1024;

  private ActivityEventReader() {}

  /** The event, or null if it is not the plain valid form (the caller then reads it fully). */
  static ActivityEvent read(byte[] bytes) {
    return PlainJson.object(bytes, REQUIRED, new Fields());
  }

  private static final class Fields implements PlainJson.Fields<ActivityEvent> {
    private final String[] text = new String[6];
    private Instant occurredAt;
    private RawJsonObject details;

    @Override
    public int read(String field, JsonToken value, JsonParser p) throws Exception {
      return switch (field) {
        case "event_id" -> text(p, value, 0, EVENT_ID, 128);
        case "workspace_id" -> text(p, value, 1, WORKSPACE_ID, 256);
        case "actor_id" -> text(p, value, 2, ACTOR_ID, 256);
        case "element_type" -> text(p, value, 3, ELEMENT_TYPE, 64);
        case "element_id" -> text(p, value, 4, ELEMENT_ID, 512);
        case "action" -> text(p, value, 5, ACTION, 128);
        case "occurred_at" -> {
          String s = PlainJson.text(p, value, 64);
          occurredAt = s == null ? null : PlainJson.instant(s);
          yield occurredAt == null ? 0 : OCCURRED_AT;
        }
        case "details" -> {
          details = details(p, value);
          yield details == null ? 0 : DETAILS;
        }
        default -> 0; // not in the schema (additionalProperties: false)
      };
    }

    /** Reads a required string into its slot: its bit, or 0 if not plainly valid. */
    private int text(JsonParser p, JsonToken token, int slot, int bit, int max) throws Exception {
      text[slot] = PlainJson.text(p, token, max);
      return text[slot] == null ? 0 : bit;
    }

    @Override
    public ActivityEvent event() {
      return new ActivityEvent(
          text[0], text[1], text[2], text[3], text[4], text[5], occurredAt, details);
    }
  }

  /**
   * The details object written as Jackson writes the map the long way binds it to (the same keys in
   * order, strings escaped as its generator does, integers as their value), or null.
   */
  private static RawJsonObject details(JsonParser p, JsonToken token) throws Exception {
    if (token != JsonToken.START_OBJECT) {
      return null;
    }
    String[] names = new String[MAX_DETAILS];
    int count = 0;
    ByteArrayBuilder out = new ByteArrayBuilder(128);
    try (JsonGenerator g = Json.mapper().getFactory().createGenerator(out)) {
      g.writeStartObject();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (count == MAX_DETAILS
            || name.indexOf('\u0000') >= 0
            || hasSurrogate(name)
            || repeated(names, count, name)) {
          return null;
        }
        names[count++] = name;
        g.writeFieldName(name);
        switch (p.nextToken()) {
          case VALUE_STRING -> {
            String s = p.getText();
            if (s.length() > MAX_DETAIL_TEXT || s.indexOf('\u0000') >= 0 || hasSurrogate(s)) {
              return null;
            }
            g.writeString(s);
          }
          case VALUE_NUMBER_INT -> {
            switch (p.getNumberType()) {
              case INT -> g.writeNumber(p.getIntValue());
              case LONG -> g.writeNumber(p.getLongValue());
              default -> g.writeNumber(p.getBigIntegerValue());
            }
          }
          case VALUE_TRUE -> g.writeBoolean(true);
          case VALUE_FALSE -> g.writeBoolean(false);
          case VALUE_NULL -> g.writeNull();
          default -> {
            return null; // a decimal, an object or an array: the long way
          }
        }
      }
      g.writeEndObject();
    }
    return RawJsonObject.of(out.toByteArray());
  }

  /**
   * Whether the text has a character outside the Basic Multilingual Plane or a lone surrogate:
   * Jackson's byte generator escapes each surrogate on its own ("\uD83D\uDE00"), which is not the
   * text the long way writes, and a lone one so escaped is JSON that PostgreSQL's jsonb rejects.
   */
  private static boolean hasSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private static boolean repeated(String[] names, int count, String name) {
    for (int i = 0; i < count; i++) {
      if (names[i].equals(name)) {
        return true;
      }
    }
    return false;
  }
}
