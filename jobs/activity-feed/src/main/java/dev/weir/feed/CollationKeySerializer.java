package dev.weir.feed;

import dev.weir.common.types.FastStringSerializer;
import dev.weir.common.types.SerializerTypeInfo;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The collator's key, written in exactly the bytes of Flink's {@link PojoSerializer} for the record
 * (a flags byte, then each field in the order of its name: a null flag and the string in {@link
 * FastStringSerializer}'s bytes, which are StringValue's), so that RocksDB keys and timers of
 * savepoints taken before this serializer stay valid. It differs in how: no reflection, and the
 * whole key handed to the output in one write: timers are snapshotted on the task thread, and the
 * POJO serializer writes each character of each timer's key through a synchronized stream write.
 */
public final class CollationKeySerializer extends TypeSerializer<CollationKey> {

  private static final long serialVersionUID = 1L;

  /** The PojoSerializer's flags: a null value, and a value of the declared class itself. */
  private static final int IS_NULL = 1;

  private static final int NO_SUBCLASS = 2;

  /** Reused for each key: a serializer instance is used by one thread ({@link #duplicate}). */
  private transient DataOutputSerializer buffer;

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public TypeSerializer<CollationKey> duplicate() {
    return new CollationKeySerializer();
  }

  @Override
  public CollationKey createInstance() {
    return new CollationKey(null, null, null, null, null);
  }

  @Override
  public CollationKey copy(CollationKey from) {
    return from;
  }

  @Override
  public CollationKey copy(CollationKey from, CollationKey reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(CollationKey key, DataOutputView target) throws IOException {
    if (key == null) {
      target.writeByte(IS_NULL);
      return;
    }
    if (buffer == null) {
      buffer = new DataOutputSerializer(128);
    }
    DataOutputSerializer out = buffer;
    out.clear();
    out.writeByte(NO_SUBCLASS);
    // The POJO serializer's field order: by name.
    writeField(key.action(), out);
    writeField(key.actorId(), out);
    writeField(key.elementId(), out);
    writeField(key.elementType(), out);
    writeField(key.workspaceId(), out);
    target.write(out.getSharedBuffer(), 0, out.length());
  }

  private static void writeField(String value, DataOutputView out) throws IOException {
    out.writeBoolean(value == null);
    if (value != null) {
      FastStringSerializer.write(value, out);
    }
  }

  @Override
  public CollationKey deserialize(DataInputView source) throws IOException {
    int flags = source.readByte();
    if ((flags & IS_NULL) != 0) {
      return null;
    }
    if (flags != NO_SUBCLASS) {
      throw new IOException("Not a collation key written by this serializer: flags " + flags);
    }
    String action = readField(source);
    String actorId = readField(source);
    String elementId = readField(source);
    String elementType = readField(source);
    String workspaceId = readField(source);
    return new CollationKey(workspaceId, actorId, elementType, elementId, action);
  }

  private static String readField(DataInputView source) throws IOException {
    return source.readBoolean() ? null : FastStringSerializer.read(source);
  }

  @Override
  public CollationKey deserialize(CollationKey reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof CollationKeySerializer;
  }

  @Override
  public int hashCode() {
    return CollationKeySerializer.class.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<CollationKey> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Its snapshot; also takes over keys written by the POJO serializer (the same bytes). */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<CollationKey> {

    public Snapshot() {
      super(CollationKeySerializer::new);
    }

    @Override
    public TypeSerializerSchemaCompatibility<CollationKey> resolveSchemaCompatibility(
        TypeSerializerSnapshot<CollationKey> oldSerializerSnapshot) {
      if (isPojoSnapshotOfTheRecord(oldSerializerSnapshot)) {
        return TypeSerializerSchemaCompatibility.compatibleAsIs();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }

    /** The POJO serializer's of the record as it is today: the same fields, the same bytes. */
    private static boolean isPojoSnapshotOfTheRecord(TypeSerializerSnapshot<CollationKey> old) {
      return old instanceof PojoSerializerSnapshot<?>
          && pojoType()
              .createSerializer(new SerializerConfigImpl())
              .snapshotConfiguration()
              .resolveSchemaCompatibility(old)
              .isCompatibleAsIs();
    }
  }

  /**
   * The record's type as Flink's extraction made it before this serializer: a POJO of its five
   * string fields (the extraction now gives {@link KeyType}, named on the record).
   */
  static PojoTypeInfo<CollationKey> pojoType() {
    List<PojoField> fields = new ArrayList<>();
    for (RecordComponent component : CollationKey.class.getRecordComponents()) {
      try {
        fields.add(
            new PojoField(CollationKey.class.getDeclaredField(component.getName()), Types.STRING));
      } catch (NoSuchFieldException e) {
        throw new IllegalStateException(e);
      }
    }
    return new PojoTypeInfo<>(CollationKey.class, fields);
  }

  /** The key's type: keyed by this serializer, wherever Flink extracts the record's type. */
  public static final class KeyType extends SerializerTypeInfo<CollationKey> {

    private static final long serialVersionUID = 1L;

    public KeyType() {
      super(CollationKey.class, "CollationKey");
    }

    @Override
    public boolean isKeyType() {
      return true;
    }

    @Override
    protected TypeSerializer<CollationKey> serializer(SerializerConfig config) {
      return new CollationKeySerializer();
    }
  }

  /** For {@code @TypeInfo} on the record. */
  public static final class Factory extends TypeInfoFactory<CollationKey> {
    @Override
    public TypeInformation<CollationKey> createTypeInfo(
        Type t, Map<String, TypeInformation<?>> genericParameters) {
      return new KeyType();
    }
  }
}
