package dev.weir.common.types;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The type information of a value that a serializer of weir's writes whole (no fields of its own to
 * Flink). Equal when of the same class; a subclass with parameters says more.
 */
public abstract class SerializerTypeInfo<T> extends TypeInformation<T> {

  private static final long serialVersionUID = 1L;

  private final Class<T> typeClass;
  private final String name;

  protected SerializerTypeInfo(Class<T> typeClass, String name) {
    this.typeClass = typeClass;
    this.name = name;
  }

  protected abstract TypeSerializer<T> serializer(SerializerConfig config);

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return typeClass;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer(config);
  }

  @Override
  @Deprecated
  public TypeSerializer<T> createSerializer(ExecutionConfig config) {
    return serializer(config.getSerializerConfig());
  }

  @Override
  public String toString() {
    return name;
  }

  @Override
  public boolean equals(Object obj) {
    return obj != null && obj.getClass() == getClass();
  }

  @Override
  public int hashCode() {
    return getClass().hashCode();
  }

  @Override
  public boolean canEqual(Object obj) {
    return obj != null && obj.getClass() == getClass();
  }
}
