package dev.weir.common.types;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A string as its UTF-8 bytes, written in one piece: for large text (a product description of
 * several kB) in records and in state. Flink's {@link StringSerializer} writes a string one
 * character at a time, and a heap state backend's checkpoint stream takes each of those writes
 * through a synchronized {@code DataOutputStream.write(int)}: for large texts, most of a job's CPU.
 * Format: the byte length as an int (-1 for null), then the bytes.
 *
 * <p>State written with {@link StringSerializer} (weir before this serializer) restores: its
 * snapshot is compatible after migration, and Flink rewrites the values with this one.
 */
public final class Utf8StringSerializer extends StringTypeSerializer {

  private static final long serialVersionUID = 1L;

  public static final Utf8StringSerializer INSTANCE = new Utf8StringSerializer();

  @Override
  public void serialize(String record, DataOutputView target) throws IOException {
    if (record == null) {
      target.writeInt(-1);
      return;
    }
    byte[] bytes = record.getBytes(StandardCharsets.UTF_8);
    target.writeInt(bytes.length);
    target.write(bytes);
  }

  @Override
  public String deserialize(DataInputView source) throws IOException {
    int length = source.readInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    source.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    int length = source.readInt();
    target.writeInt(length);
    if (length > 0) {
      target.write(source, length);
    }
  }

  @Override
  public TypeSerializerSnapshot<String> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Its snapshot; also takes over state written by {@link StringSerializer}. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<String> {

    public Snapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<String> resolveSchemaCompatibility(
        TypeSerializerSnapshot<String> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof StringSerializer.StringSerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }
  }
}
