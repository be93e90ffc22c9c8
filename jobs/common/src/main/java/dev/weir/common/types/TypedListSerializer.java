package dev.weir.common.types;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A list field of a POJO (of POJOs, strings, ...), written by Flink's {@link ListSerializer} with
 * its elements' own serializer. Flink's type extraction gives a {@code List} field to Kryo; this
 * serializer's snapshot also takes over state written that way (compatible after migration), which
 * Flink's list serializer refuses.
 */
public final class TypedListSerializer<E> extends TypeSerializer<List<E>> {

  private static final long serialVersionUID = 1L;

  private final ListSerializer<E> list;

  public TypedListSerializer(TypeSerializer<E> elementSerializer) {
    this.list = new ListSerializer<>(elementSerializer);
  }

  public TypeSerializer<E> getElementSerializer() {
    return list.getElementSerializer();
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<List<E>> duplicate() {
    TypeSerializer<E> element = getElementSerializer().duplicate();
    return element == getElementSerializer() ? this : new TypedListSerializer<>(element);
  }

  @Override
  public List<E> createInstance() {
    return list.createInstance();
  }

  @Override
  public List<E> copy(List<E> from) {
    return list.copy(from);
  }

  @Override
  public List<E> copy(List<E> from, List<E> reuse) {
    return list.copy(from, reuse);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(List<E> record, DataOutputView target) throws IOException {
    list.serialize(record, target);
  }

  @Override
  public List<E> deserialize(DataInputView source) throws IOException {
    return list.deserialize(source);
  }

  @Override
  public List<E> deserialize(List<E> reuse, DataInputView source) throws IOException {
    return list.deserialize(reuse, source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    list.copy(source, target);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof TypedListSerializer<?> other && other.list.equals(list);
  }

  @Override
  public int hashCode() {
    return list.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<List<E>> snapshotConfiguration() {
    return new Snapshot<>(this);
  }

  /** Its snapshot: the element serializer's, and the take-over of Kryo's state. */
  public static final class Snapshot<E>
      extends CompositeTypeSerializerSnapshot<List<E>, TypedListSerializer<E>> {

    /** For reading a snapshot. */
    public Snapshot() {}

    Snapshot(TypedListSerializer<E> serializer) {
      super(serializer);
    }

    @Override
    protected int getCurrentOuterSnapshotVersion() {
      return 1;
    }

    @Override
    protected TypeSerializer<?>[] getNestedSerializers(TypedListSerializer<E> outer) {
      return new TypeSerializer<?>[] {outer.getElementSerializer()};
    }

    @Override
    @SuppressWarnings("unchecked")
    protected TypedListSerializer<E> createOuterSerializerWithNestedSerializers(
        TypeSerializer<?>[] nested) {
      return new TypedListSerializer<>((TypeSerializer<E>) nested[0]);
    }

    @Override
    public TypeSerializerSchemaCompatibility<List<E>> resolveSchemaCompatibility(
        TypeSerializerSnapshot<List<E>> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof KryoSerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }
  }
}
