package dev.weir.common.types;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;

/** What every serializer of an immutable String does alike; subclasses choose the bytes. */
abstract class StringTypeSerializer extends TypeSerializerSingleton<String> {

  private static final long serialVersionUID = 1L;

  private static final String EMPTY = "";

  @Override
  public final boolean isImmutableType() {
    return true;
  }

  @Override
  public final String createInstance() {
    return EMPTY;
  }

  @Override
  public final String copy(String from) {
    return from;
  }

  @Override
  public final String copy(String from, String reuse) {
    return from;
  }

  @Override
  public final int getLength() {
    return -1;
  }

  @Override
  public final String deserialize(String reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }
}
