package dev.weir.identity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.IsoInstant;
import dev.weir.schema.Json;
import dev.weir.schema.RawJsonObject;
import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;

/**
 * {@code tracking.enriched} values written by hand: the bytes {@link EventCodec#encode} writes
 * (fields in the same order, nulls left out, the same string escapes, the time as {@link
 * Instant#toString}), without Jackson's bean serializer, generator and time formatter per event.
 * Properties kept raw ({@link RawJsonObject}) are copied as they are; any other map goes through
 * Jackson, which dominated the enrich stage's profile.
 */
final class EnrichedJson implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final byte[] EVENT_ID = ascii("{\"event_id\":\"");
  private static final byte[] PROJECT_ID = ascii("\",\"project_id\":\"");
  private static final byte[] DISTINCT_ID = ascii("\",\"distinct_id\":\"");
  private static final byte[] NAME = ascii("\",\"name\":\"");
  private static final byte[] TIME = ascii("\",\"time\":\"");
  private static final byte[] PROPERTIES = ascii(",\"properties\":");
  private static final byte[] CANONICAL_ID = ascii(",\"canonical_id\":\"");

  private final EventCodec<EnrichedTrackingEvent> codec =
      EventCodec.of(EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class);

  /**
   * The buffer each event is written into, then copied out once: a fresh one per event, grown by
   * copying, would be a large part of each event's cost. One sink subtask (one thread) has its own
   * instance, deserialized from the job graph.
   */
  private transient Out scratch;

  byte[] encode(EnrichedTrackingEvent e) {
    if (e.eventId() == null
        || e.projectId() == null
        || e.distinctId() == null
        || e.name() == null
        || e.time() == null
        || e.canonicalId() == null
        || hasSurrogate(e.eventId())
        || hasSurrogate(e.projectId())
        || hasSurrogate(e.distinctId())
        || hasSurrogate(e.name())
        || hasSurrogate(e.canonicalId())) {
      // Not a valid event (Jackson writes what it has), or characters beyond the BMP, which
      // Jackson writes as two escapes.
      return codec.encode(e);
    }
    if (scratch == null) {
      scratch = new Out(1024);
    }
    Out out = scratch;
    out.reset();
    out.write(EVENT_ID);
    out.string(e.eventId());
    out.write(PROJECT_ID);
    out.string(e.projectId());
    out.write(DISTINCT_ID);
    out.string(e.distinctId());
    out.write(NAME);
    out.string(e.name());
    out.write(TIME);
    time(e.time(), out);
    out.write('"');
    Map<String, Object> properties = e.properties();
    if (properties != null) {
      out.write(PROPERTIES);
      if (properties instanceof RawJsonObject raw) {
        out.write(raw.json());
      } else {
        out.write(codecBytes(properties));
      }
    }
    out.write(CANONICAL_ID);
    out.string(e.canonicalId());
    out.write('"');
    out.write('}');
    return out.toByteArray();
  }

  private static boolean hasSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private static byte[] codecBytes(Map<String, Object> properties) {
    try {
      return Json.mapper().writeValueAsBytes(properties);
    } catch (JsonProcessingException ex) {
      throw new UncheckedIOException("cannot write tracking.enriched properties", ex);
    }
  }

  /** {@link Instant#toString}, through the Out's own text buffer. */
  static void time(Instant t, Out out) {
    out.text.setLength(0);
    IsoInstant.append(out.text, t);
    out.writeAscii(out.text);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** A byte buffer that writes JSON strings as Jackson's generator does. */
  static final class Out extends ByteArrayOutputStream {
    Out(int size) {
      super(size);
    }

    @Override
    public void write(byte[] bytes) {
      write(bytes, 0, bytes.length);
    }

    /** Reused for text written as ASCII (a time), so that nothing is allocated per event. */
    final StringBuilder text = new StringBuilder(32);

    void writeAscii(CharSequence s) {
      int n = s.length();
      ensure(n);
      for (int i = 0; i < n; i++) {
        buf[count + i] = (byte) s.charAt(i);
      }
      count += n;
    }

    /** The string's characters, escaped: no quotes. */
    void string(String s) {
      int n = s.length();
      ensure(n);
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
          write(JsonStringEncoder.getInstance().quoteAsUTF8(s));
          return;
        }
        buf[count + i] = (byte) c;
      }
      count += n;
    }

    private void ensure(int more) {
      if (count + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
      }
    }
  }
}
