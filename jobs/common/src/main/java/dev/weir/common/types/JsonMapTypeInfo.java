package dev.weir.common.types;

import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * A free-form JSON object ({@code Map<String, Object>}) serialized by {@link JsonMapSerializer}.
 * The event records live in the schemas module, which knows nothing of Flink, so instead of an
 * annotation on their fields a job asks for {@link #pojoOf(Class)}.
 */
public final class JsonMapTypeInfo extends SerializerTypeInfo<Map<String, Object>> {

  private static final long serialVersionUID = 1L;

  public static final JsonMapTypeInfo INSTANCE = new JsonMapTypeInfo();

  @SuppressWarnings({"unchecked", "rawtypes"})
  private JsonMapTypeInfo() {
    super((Class) Map.class, JsonMapSerializer.INSTANCE, "JsonMap");
  }

  /**
   * Flink's POJO type of {@code type} (a Java record or a POJO), with every {@code Map<String,
   * Object>} field, its own or a nested POJO's, serialized by {@link JsonMapSerializer} instead of
   * by Kryo.
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
      if (isJsonObject(field.getField())) {
        fields.add(new PojoField(field.getField(), INSTANCE));
      } else if (field.getTypeInformation() instanceof PojoTypeInfo<?> nested) {
        fields.add(new PojoField(field.getField(), pojoOf(nested.getTypeClass())));
      } else {
        fields.add(field);
      }
    }
    return new PojoTypeInfo<>(type, fields);
  }

  private static boolean isJsonObject(Field field) {
    return field.getGenericType() instanceof ParameterizedType p
        && p.getRawType() == Map.class
        && p.getActualTypeArguments()[0] == String.class
        && p.getActualTypeArguments()[1] == Object.class;
  }
}
