package dev.weir.common.types;

import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * Flink's POJO types of weir's records with nothing left to Kryo. Flink's type extraction hands a
 * {@code Map} or {@code List} field to Kryo: a reflective deep copy between chained operators and a
 * state format tied to Kryo (its version changes with Flink 2). The event records live in the
 * schemas module, which knows nothing of Flink, so instead of annotations on their fields a job
 * asks for their types here.
 */
public final class KryoFree {

  private KryoFree() {}

  /**
   * The POJO type of {@code type} (a Java record or a POJO) where every {@code Map<String, Object>}
   * field is a {@link JsonMapTypeInfo}, every {@code List} of POJOs a {@link TypedListTypeInfo},
   * and nested POJOs the same, all of them taking over state Kryo wrote; and every String field a
   * {@link FastStringTypeInfo} (Flink's bytes, faster).
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
      fields.add(new PojoField(field.getField(), kryoFree(field)));
    }
    return new PojoTypeInfo<>(type, fields);
  }

  private static TypeInformation<?> kryoFree(PojoField field) {
    if (BasicTypeInfo.STRING_TYPE_INFO.equals(field.getTypeInformation())) {
      return FastStringTypeInfo.INSTANCE;
    }
    Field f = field.getField();
    if (f.getGenericType() instanceof ParameterizedType p) {
      Type[] args = p.getActualTypeArguments();
      if (p.getRawType() == Map.class && args[0] == String.class && args[1] == Object.class) {
        return JsonMapTypeInfo.INSTANCE;
      }
      if (p.getRawType() == List.class && args[0] instanceof Class<?> element) {
        TypeInformation<?> elementType = TypeInformation.of(element);
        if (elementType instanceof PojoTypeInfo<?>) {
          return new TypedListTypeInfo<>(pojoOf(element));
        }
        if (!(elementType instanceof GenericTypeInfo<?>)) {
          return new TypedListTypeInfo<>(elementType); // strings, numbers
        }
      }
    }
    if (field.getTypeInformation() instanceof PojoTypeInfo<?> nested) {
      return pojoOf(nested.getTypeClass());
    }
    return field.getTypeInformation();
  }
}
