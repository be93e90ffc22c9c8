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
    try (JsonParser p = Json.mapper().getFactory().createParser(bytes)) {
      return read(p);
    } catch (Exception e) {
      return null; // the long way says what is wrong, or reads what this does not
    }
  }

  private static ActivityEvent read(JsonParser p) throws Exception {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    String[] text = new String[6];
    Instant occurredAt = null;
    RawJsonObject details = null;
    int seen = 0;
    JsonToken token;
    while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      int bit;
      switch (field) {
        case "event_id" -> bit = text(p, value, text, 0, EVENT_ID, 128);
        case "workspace_id" -> bit = text(p, value, text, 1, WORKSPACE_ID, 256);
        case "actor_id" -> bit = text(p, value, text, 2, ACTOR_ID, 256);
        case "element_type" -> bit = text(p, value, text, 3, ELEMENT_TYPE, 64);
        case "element_id" -> bit = text(p, value, text, 4, ELEMENT_ID, 512);
        case "action" -> bit = text(p, value, text, 5, ACTION, 128);
        case "occurred_at" -> {
          String s = PlainJson.text(p, value, 64);
          occurredAt = s == null ? null : PlainJson.instant(s);
          bit = occurredAt == null ? 0 : OCCURRED_AT;
        }
        case "details" -> {
          details = details(p, value);
          bit = details == null ? 0 : DETAILS;
        }
        default -> bit = 0; // not in the schema (additionalProperties: false)
      }
      if (bit == 0 || (seen & bit) != 0) {
        return null; // a value the long way must judge, or a repeat it decides
      }
      seen |= bit;
    }
    if (token != JsonToken.END_OBJECT || (seen & REQUIRED) != REQUIRED || p.nextToken() != null) {
      return null;
    }
    return new ActivityEvent(
        text[0], text[1], text[2], text[3], text[4], text[5], occurredAt, details);
  }

  /** Reads a required string into {@code into[slot]}: its bit, or 0 if not plainly valid. */
  private static int text(JsonParser p, JsonToken token, String[] into, int slot, int bit, int max)
      throws Exception {
    into[slot] = PlainJson.text(p, token, max);
    return into[slot] == null ? 0 : bit;
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
