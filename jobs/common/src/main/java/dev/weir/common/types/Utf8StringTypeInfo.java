package dev.weir.common.types;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * A String serialized by {@link Utf8StringSerializer}. Put it on a large text field of a POJO:
 * {@code @TypeInfo(Utf8StringTypeInfo.Factory.class) public String description;}
 */
public final class Utf8StringTypeInfo extends TypeInformation<String> {

  private static final long serialVersionUID = 1L;

  public static final Utf8StringTypeInfo INSTANCE = new Utf8StringTypeInfo();

  /** For {@code @TypeInfo} on a field. */
  public static final class Factory extends TypeInfoFactory<String> {
    @Override
    public TypeInformation<String> createTypeInfo(
        Type t, Map<String, TypeInformation<?>> genericParameters) {
      return INSTANCE;
    }
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
  public Class<String> getTypeClass() {
    return String.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<String> createSerializer(SerializerConfig config) {
    return Utf8StringSerializer.INSTANCE;
  }

  @Override
  @Deprecated
  public TypeSerializer<String> createSerializer(ExecutionConfig config) {
    return Utf8StringSerializer.INSTANCE;
  }

  @Override
  public String toString() {
    return "Utf8String";
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof Utf8StringTypeInfo;
  }

  @Override
  public int hashCode() {
    return Utf8StringTypeInfo.class.hashCode();
  }

  @Override
  public boolean canEqual(Object obj) {
    return obj instanceof Utf8StringTypeInfo;
  }
}
