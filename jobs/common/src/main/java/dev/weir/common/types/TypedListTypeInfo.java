package dev.weir.common.types;

import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * A list whose elements have a serializer of their own ({@link TypedListSerializer}); see {@link
 * KryoFree#pojoOf}.
 */
public final class TypedListTypeInfo<E> extends SerializerTypeInfo<List<E>> {

  private static final long serialVersionUID = 1L;

  private final TypeInformation<E> elementType;

  @SuppressWarnings({"unchecked", "rawtypes"})
  public TypedListTypeInfo(TypeInformation<E> elementType) {
    super((Class) List.class, "TypedList<" + elementType + ">");
    this.elementType = Objects.requireNonNull(elementType);
  }

  @Override
  protected TypeSerializer<List<E>> serializer(SerializerConfig config) {
    return new TypedListSerializer<>(elementType.createSerializer(config));
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof TypedListTypeInfo<?> other && other.elementType.equals(elementType);
  }

  @Override
  public int hashCode() {
    return 31 * TypedListTypeInfo.class.hashCode() + elementType.hashCode();
  }
}
