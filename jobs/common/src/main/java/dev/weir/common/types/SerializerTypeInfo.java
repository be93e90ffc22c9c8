package dev.weir.common.types;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** The type information of a value that one stateless serializer of weir's writes. */
abstract class SerializerTypeInfo<T> extends TypeInformation<T> {

  private static final long serialVersionUID = 1L;

  private final Class<T> typeClass;
  private final TypeSerializer<T> serializer;
  private final String name;

  SerializerTypeInfo(Class<T> typeClass, TypeSerializer<T> serializer, String name) {
    this.typeClass = typeClass;
    this.serializer = serializer;
    this.name = name;
  }

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
    return serializer;
  }

  @Override
  @Deprecated
  public TypeSerializer<T> createSerializer(ExecutionConfig config) {
    return serializer;
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
