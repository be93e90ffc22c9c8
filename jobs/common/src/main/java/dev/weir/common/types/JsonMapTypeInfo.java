package dev.weir.common.types;

import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * A free-form JSON object ({@code Map<String, Object>}) serialized by {@link JsonMapSerializer};
 * see {@link KryoFree#pojoOf}.
 */
public final class JsonMapTypeInfo extends SerializerTypeInfo<Map<String, Object>> {

  private static final long serialVersionUID = 1L;

  public static final JsonMapTypeInfo INSTANCE = new JsonMapTypeInfo();

  @SuppressWarnings({"unchecked", "rawtypes"})
  private JsonMapTypeInfo() {
    super((Class) Map.class, "JsonMap");
  }

  @Override
  protected TypeSerializer<Map<String, Object>> serializer(SerializerConfig config) {
    return JsonMapSerializer.INSTANCE;
  }
}
