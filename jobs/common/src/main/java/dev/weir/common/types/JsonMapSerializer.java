package dev.weir.common.types;

import dev.weir.schema.Json;
import dev.weir.schema.RawJsonObject;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A free-form JSON object of an event (tracking properties, activity details) as the values Jackson
 * reads it into ({@link Json#mapper()}: maps, lists, strings, numbers, booleans, null), written as
 * its JSON bytes. Flink would otherwise hand such a map to Kryo: a reflective deep copy between
 * every two chained operators (a large share of a job's CPU) and a state format tied to Kryo's
 * class registrations. Format: the byte length as an int (-1 for null), then the JSON.
 *
 * <p>A {@link RawJsonObject} (properties kept as the JSON text they arrived as) is written as that
 * text (size {@value #RAW}, then the byte length and the bytes), is read back as one and is not
 * copied: it is immutable. Nothing is parsed or encoded on the way.
 *
 * <p>State written with Kryo (weir before this serializer) restores: its snapshot is compatible
 * after migration, and Flink rewrites the values with this one.
 */
public final class JsonMapSerializer extends TypeSerializerSingleton<Map<String, Object>> {

  private static final long serialVersionUID = 1L;

  public static final JsonMapSerializer INSTANCE = new JsonMapSerializer();

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public Map<String, Object> createInstance() {
    return new LinkedHashMap<>();
  }

  @Override
  public Map<String, Object> copy(Map<String, Object> from) {
    if (from instanceof RawJsonObject) {
      return from;
    }
    return from == null ? null : copyObject(from);
  }

  @Override
  public Map<String, Object> copy(Map<String, Object> from, Map<String, Object> reuse) {
    return copy(from);
  }

  /** Containers are copied; strings, numbers and booleans are immutable and shared. */
  private static Map<String, Object> copyObject(Map<String, Object> from) {
    Map<String, Object> to = new LinkedHashMap<>(Math.max(4, from.size() * 4 / 3 + 1));
    from.forEach((k, v) -> to.put(k, copyValue(v)));
    return to;
  }

  @SuppressWarnings("unchecked")
  private static Object copyValue(Object value) {
    if (value instanceof Map<?, ?> map) {
      return copyObject((Map<String, Object>) map);
    }
    if (value instanceof List<?> list) {
      List<Object> to = new ArrayList<>(list.size());
      list.forEach(v -> to.add(copyValue(v)));
      return to;
    }
    return value;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(Map<String, Object> record, DataOutputView target) throws IOException {
    if (record == null) {
      target.writeInt(-1);
      return;
    }
    if (record instanceof RawJsonObject raw) {
      target.writeInt(RAW);
      writeBytes(raw.json(), target);
      return;
    }
    writeObject(record, target);
  }

  @Override
  public Map<String, Object> deserialize(DataInputView source) throws IOException {
    int size = source.readInt();
    if (size == RAW) {
      return RawJsonObject.of(readBytes(source));
    }
    return size < 0 ? null : readObject(size, source);
  }

  @Override
  public Map<String, Object> deserialize(Map<String, Object> reuse, DataInputView source)
      throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  /** In place of the size of the top object: JSON text follows. */
  static final int RAW = -2;

  // The format: an object is its size, then each key and value; a value is a tag, then its data.
  private static final byte NULL = 0;
  private static final byte STRING = 1;
  private static final byte INT = 2;
  private static final byte LONG = 3;
  private static final byte BIG_INTEGER = 4;
  private static final byte BIG_DECIMAL = 5;
  private static final byte DOUBLE = 6;
  private static final byte TRUE = 7;
  private static final byte FALSE = 8;
  private static final byte OBJECT = 9;
  private static final byte ARRAY = 10;

  private static void writeObject(Map<String, Object> object, DataOutputView out)
      throws IOException {
    out.writeInt(object.size());
    for (Map.Entry<String, Object> e : object.entrySet()) {
      writeString(e.getKey(), out);
      writeValue(e.getValue(), out);
    }
  }

  @SuppressWarnings("unchecked")
  private static void writeValue(Object value, DataOutputView out) throws IOException {
    if (value == null) {
      out.writeByte(NULL);
    } else if (value instanceof String v) {
      out.writeByte(STRING);
      writeString(v, out);
    } else if (value instanceof Integer v) {
      out.writeByte(INT);
      out.writeInt(v);
    } else if (value instanceof Long v) {
      out.writeByte(LONG);
      out.writeLong(v);
    } else if (value instanceof BigInteger v) {
      out.writeByte(BIG_INTEGER);
      writeBytes(v.toByteArray(), out);
    } else if (value instanceof BigDecimal v) {
      out.writeByte(BIG_DECIMAL);
      out.writeInt(v.scale());
      writeBytes(v.unscaledValue().toByteArray(), out);
    } else if (value instanceof Double v) {
      out.writeByte(DOUBLE);
      out.writeDouble(v);
    } else if (value instanceof Boolean v) {
      out.writeByte(v ? TRUE : FALSE);
    } else if (value instanceof Map<?, ?> v) {
      out.writeByte(OBJECT);
      writeObject((Map<String, Object>) v, out);
    } else if (value instanceof List<?> v) {
      out.writeByte(ARRAY);
      out.writeInt(v.size());
      for (Object element : v) {
        writeValue(element, out);
      }
    } else {
      throw new IllegalArgumentException(
          "not a JSON value as Jackson reads one: " + value.getClass().getName());
    }
  }

  private static Map<String, Object> readObject(int size, DataInputView in) throws IOException {
    Map<String, Object> object = new LinkedHashMap<>(Math.max(4, size * 4 / 3 + 1));
    for (int i = 0; i < size; i++) {
      object.put(readString(in), readValue(in));
    }
    return object;
  }

  private static Object readValue(DataInputView in) throws IOException {
    byte tag = in.readByte();
    switch (tag) {
      case NULL:
        return null;
      case STRING:
        return readString(in);
      case INT:
        return in.readInt();
      case LONG:
        return in.readLong();
      case BIG_INTEGER:
        return new BigInteger(readBytes(in));
      case BIG_DECIMAL:
        int scale = in.readInt();
        return new BigDecimal(new BigInteger(readBytes(in)), scale);
      case DOUBLE:
        return in.readDouble();
      case TRUE:
        return Boolean.TRUE;
      case FALSE:
        return Boolean.FALSE;
      case OBJECT:
        return readObject(in.readInt(), in);
      case ARRAY:
        int size = in.readInt();
        List<Object> array = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
          array.add(readValue(in));
        }
        return array;
      default:
        throw new IOException("unknown JSON value tag " + tag + ": corrupt or foreign data");
    }
  }

  private static void writeString(String s, DataOutputView out) throws IOException {
    writeBytes(s.getBytes(StandardCharsets.UTF_8), out);
  }

  private static String readString(DataInputView in) throws IOException {
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputView in) throws IOException {
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return bytes;
  }

  @Override
  public TypeSerializerSnapshot<Map<String, Object>> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Its snapshot; also takes over state written by Kryo. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<Map<String, Object>> {

    public Snapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<Map<String, Object>> resolveSchemaCompatibility(
        TypeSerializerSnapshot<Map<String, Object>> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof KryoSerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }
  }
}
