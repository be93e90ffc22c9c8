package dev.weir.common.types;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Flink's contract tests for a serializer, and the take-over of StringSerializer's state. */
class Utf8StringSerializerTest extends SerializerTestBase<String> {

  @Override
  protected TypeSerializer<String> createSerializer() {
    return Utf8StringSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<String> getTypeClass() {
    return String.class;
  }

  @Override
  protected String[] getTestData() {
    return new String[] {
      "", "a", "Zelt für zwei ⛺ 𝄞", "Two-person tent. ".repeat(400), null,
    };
  }

  @Test
  void stateWrittenByStringSerializerIsMigrated() {
    assertThat(
            Utf8StringSerializer.INSTANCE
                .snapshotConfiguration()
                .resolveSchemaCompatibility(StringSerializer.INSTANCE.snapshotConfiguration())
                .isCompatibleAfterMigration())
        .isTrue();
  }

  @Test
  void writesTheTextAsOneBlockOfUtf8() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(16);
    Utf8StringSerializer.INSTANCE.serialize("für", out);
    assertThat(out.getCopyOfBuffer()).containsExactly(0, 0, 0, 4, 'f', 0xc3, 0xbc, 'r');
  }
}
