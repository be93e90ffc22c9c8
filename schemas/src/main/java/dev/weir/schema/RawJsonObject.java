package dev.weir.schema;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A free-form JSON object (an event's {@code properties}) kept as the UTF-8 JSON text it arrived
 * as. A job that only passes the object on never parses it: it is written out as those bytes
 * (Jackson, {@code JsonMapSerializer}) instead of being bound to maps, copied and encoded again. As
 * a {@link Map} it is read-only and parsed on first use, into what {@link Json#mapper()} reads (so
 * it equals the map the same JSON binds to).
 *
 * <p>The bytes must be one valid JSON object; {@link EventCodec} makes one only of text it parsed.
 */
@JsonSerialize(using = RawJsonObject.Writer.class)
public final class RawJsonObject extends AbstractMap<String, Object> implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};

  private final byte[] json;
  private transient Map<String, Object> parsed;

  private RawJsonObject(byte[] json) {
    this.json = json;
  }

  /** Wraps {@code json} (not copied: it must not change afterwards). */
  public static RawJsonObject of(byte[] json) {
    return new RawJsonObject(json);
  }

  /** The UTF-8 JSON text (not copied: do not change it). */
  public byte[] json() {
    return json;
  }

  private Map<String, Object> map() {
    if (parsed == null) {
      try {
        // Through a tree, as EventCodec binds: the same numbers (19.90 reads as 19.9).
        parsed =
            Collections.unmodifiableMap(
                Json.mapper()
                    .treeToValue(
                        Json.mapper().readTree(json),
                        Json.mapper().getTypeFactory().constructType(MAP)));
      } catch (IOException e) {
        throw new UncheckedIOException("not a JSON object: " + this.toJson(), e);
      }
    }
    return parsed;
  }

  private String toJson() {
    return new String(json, StandardCharsets.UTF_8);
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return map().entrySet();
  }

  @Override
  public Object get(Object key) {
    return map().get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return map().containsKey(key);
  }

  @Override
  public int size() {
    return map().size();
  }

  @Override
  public String toString() {
    return toJson();
  }

  /** Writes the bytes as they are into a UTF-8 generator; any other gets the parsed map. */
  static final class Writer extends JsonSerializer<RawJsonObject> {
    @Override
    public void serialize(RawJsonObject value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      if (gen instanceof UTF8JsonGenerator) {
        gen.writeRawValue(new Utf8(value.json));
      } else {
        provider.defaultSerializeValue(value.map(), gen);
      }
    }

    @Override
    public boolean isEmpty(SerializerProvider provider, RawJsonObject value) {
      return false;
    }
  }

  /** Raw UTF-8 bytes as Jackson's raw-value writer takes them. */
  private record Utf8(byte[] bytes) implements SerializableString {
    @Override
    public String getValue() {
      return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public int charLength() {
      return getValue().length();
    }

    @Override
    public char[] asQuotedChars() {
      throw new UnsupportedOperationException();
    }

    @Override
    public byte[] asUnquotedUTF8() {
      return bytes;
    }

    @Override
    public byte[] asQuotedUTF8() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int appendQuotedUTF8(byte[] buffer, int offset) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int appendQuoted(char[] buffer, int offset) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int appendUnquotedUTF8(byte[] buffer, int offset) {
      if (offset + bytes.length > buffer.length) {
        return -1;
      }
      System.arraycopy(bytes, 0, buffer, offset, bytes.length);
      return bytes.length;
    }

    @Override
    public int appendUnquoted(char[] buffer, int offset) {
      String s = getValue();
      if (offset + s.length() > buffer.length) {
        return -1;
      }
      s.getChars(0, s.length(), buffer, offset);
      return s.length();
    }

    @Override
    public int writeQuotedUTF8(OutputStream out) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int writeUnquotedUTF8(OutputStream out) throws IOException {
      out.write(bytes);
      return bytes.length;
    }

    @Override
    public int putQuotedUTF8(ByteBuffer buffer) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int putUnquotedUTF8(ByteBuffer out) {
      if (bytes.length > out.remaining()) {
        return -1;
      }
      out.put(bytes);
      return bytes.length;
    }
  }
}
