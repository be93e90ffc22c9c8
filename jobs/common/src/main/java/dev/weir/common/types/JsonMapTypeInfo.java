package dev.weir.common.types;

import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * A free-form JSON object ({@code Map<String, Object>}) serialized by {@link JsonMapSerializer}.
 * The event records live in the schemas module, which knows nothing of Flink, so instead of an
 * annotation on their fields a job asks for {@link #pojoOf(Class)}.
 */
public final class JsonMapTypeInfo extends TypeInformation<Map<String, Object>> {

  private static final long serialVersionUID = 1L;

  public static final JsonMapTypeInfo INSTANCE = new JsonMapTypeInfo();

  /**
   * Flink's POJO type of {@code type} (a Java record or a POJO), with every {@code Map<String,
   * Object>} field serialized as JSON instead of by Kryo.
   *
   * @throws IllegalArgumentException if Flink does not see {@code type} as a POJO
   */
  public static <T> TypeInformation<T> pojoOf(Class<T> type) {
    TypeInformation<T> extracted = TypeInformation.of(type);
    if (!(extracted instanceof PojoTypeInfo<T> pojo)) {
      throw new IllegalArgumentException(type.getName() + " is not a Flink POJO: " + extracted);
    }
    List<PojoField> fields = new ArrayList<>(pojo.getArity());
    for (int i = 0; i < pojo.getArity(); i++) {
      PojoField field = pojo.getPojoFieldAt(i);
      fields.add(
          isJsonObject(field.getField()) ? new PojoField(field.getField(), INSTANCE) : field);
    }
    return new PojoTypeInfo<>(type, fields);
  }

  private static boolean isJsonObject(Field field) {
    return field.getGenericType() instanceof ParameterizedType p
        && p.getRawType() == Map.class
        && p.getActualTypeArguments()[0] == String.class
        && p.getActualTypeArguments()[1] == Object.class;
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
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Class<Map<String, Object>> getTypeClass() {
    return (Class) Map.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<Map<String, Object>> createSerializer(SerializerConfig config) {
    return JsonMapSerializer.INSTANCE;
  }

  @Override
  @Deprecated
  public TypeSerializer<Map<String, Object>> createSerializer(ExecutionConfig config) {
    return JsonMapSerializer.INSTANCE;
  }

  @Override
  public String toString() {
    return "JsonMap";
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof JsonMapTypeInfo;
  }

  @Override
  public int hashCode() {
    return JsonMapTypeInfo.class.hashCode();
  }

  @Override
  public boolean canEqual(Object obj) {
    return obj instanceof JsonMapTypeInfo;
  }
}
