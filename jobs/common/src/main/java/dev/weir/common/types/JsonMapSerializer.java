package dev.weir.common.types;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.weir.schema.Json;
import java.io.IOException;
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
 * every two chained operators (28 % of identity's CPU samples) and a state format tied to Kryo's
 * class registrations. Format: the byte length as an int (-1 for null), then the JSON.
 *
 * <p>State written with Kryo (weir before this serializer) restores: its snapshot is compatible
 * after migration, and Flink rewrites the values with this one.
 */
public final class JsonMapSerializer extends TypeSerializerSingleton<Map<String, Object>> {

  private static final long serialVersionUID = 1L;

  public static final JsonMapSerializer INSTANCE = new JsonMapSerializer();

  private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};

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
    byte[] bytes = Json.mapper().writeValueAsBytes(record);
    target.writeInt(bytes.length);
    target.write(bytes);
  }

  @Override
  public Map<String, Object> deserialize(DataInputView source) throws IOException {
    int length = source.readInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    source.readFully(bytes);
    return Json.mapper().readValue(bytes, MAP);
  }

  @Override
  public Map<String, Object> deserialize(Map<String, Object> reuse, DataInputView source)
      throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    int length = source.readInt();
    target.writeInt(length);
    if (length > 0) {
      target.write(source, length);
    }
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
