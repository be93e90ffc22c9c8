package dev.weir.common.types;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * A String serialized by {@link Utf8StringSerializer}. Put it on a large text field of a POJO:
 * {@code @TypeInfo(Utf8StringTypeInfo.Factory.class) public String description;}
 */
public final class Utf8StringTypeInfo extends SerializerTypeInfo<String> {

  private static final long serialVersionUID = 1L;

  public static final Utf8StringTypeInfo INSTANCE = new Utf8StringTypeInfo();

  private Utf8StringTypeInfo() {
    super(String.class, "Utf8String");
  }

  /** For {@code @TypeInfo} on a field. */
  public static final class Factory extends TypeInfoFactory<String> {
    @Override
    public TypeInformation<String> createTypeInfo(
        Type t, Map<String, TypeInformation<?>> genericParameters) {
      return INSTANCE;
    }
  }

  @Override
  protected TypeSerializer<String> serializer(SerializerConfig config) {
    return Utf8StringSerializer.INSTANCE;
  }
}
