package dev.weir.common.types;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** A String serialized by {@link FastStringSerializer}; see {@link KryoFree#pojoOf}. */
public final class FastStringTypeInfo extends SerializerTypeInfo<String> {

  private static final long serialVersionUID = 1L;

  public static final FastStringTypeInfo INSTANCE = new FastStringTypeInfo();

  private FastStringTypeInfo() {
    super(String.class, "FastString");
  }

  @Override
  protected TypeSerializer<String> serializer(SerializerConfig config) {
    return FastStringSerializer.INSTANCE;
  }
}
