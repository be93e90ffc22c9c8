package dev.weir.common.types;

import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** A list of POJOs serialized by {@link PojoListSerializer}; see {@link KryoFree#pojoOf}. */
public final class PojoListTypeInfo<E> extends SerializerTypeInfo<List<E>> {

  private static final long serialVersionUID = 1L;

  private final TypeInformation<E> elementType;

  @SuppressWarnings({"unchecked", "rawtypes"})
  public PojoListTypeInfo(TypeInformation<E> elementType) {
    super((Class) List.class, "PojoList<" + elementType + ">");
    this.elementType = Objects.requireNonNull(elementType);
  }

  @Override
  TypeSerializer<List<E>> serializer(SerializerConfig config) {
    return new PojoListSerializer<>(elementType.createSerializer(config));
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof PojoListTypeInfo<?> other && other.elementType.equals(elementType);
  }

  @Override
  public int hashCode() {
    return 31 * PojoListTypeInfo.class.hashCode() + elementType.hashCode();
  }
}
