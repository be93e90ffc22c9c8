package dev.weir.common.types;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.common.types.StateThroughSavepoint.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Flink's contract tests for a serializer; StringSerializer's bytes both ways; POJOs whose strings
 * StringSerializer wrote restore.
 */
class FastStringSerializerTest extends SerializerTestBase<String> {

  private static final String[] TEXTS = {
    "",
    "a",
    "evt-000123",
    "x".repeat(127),
    "x".repeat(128),
    "y".repeat(20_000),
    "café",
    "é at the start",
    "ascii then ⛺ then ascii",
    "𝄞 surrogate pair",
    "lone \ud800 surrogate",
    "\u007f\u0080\u07ff\u0800\uffff",
    null,
  };

  @Override
  protected TypeSerializer<String> createSerializer() {
    return FastStringSerializer.INSTANCE;
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
    return TEXTS;
  }

  @Test
  void writesAndReadsStringSerializersBytes() throws Exception {
    List<String> texts = new ArrayList<>(Arrays.asList(TEXTS));
    Random random = new Random(27);
    for (int i = 0; i < 2_000; i++) {
      texts.add(randomText(random));
    }
    for (String text : texts) {
      byte[] flinks = bytes(StringSerializer.INSTANCE, text);
      assertThat(bytes(FastStringSerializer.INSTANCE, text)).as("%s", text).isEqualTo(flinks);
      // Followed by other data, which the read must leave where it is.
      DataOutputSerializer out = new DataOutputSerializer(64);
      out.write(flinks);
      out.writeInt(42);
      DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
      assertThat(FastStringSerializer.read(in)).isEqualTo(text);
      assertThat(in.readInt()).isEqualTo(42);
    }
  }

  @Test
  void takesOverStringSerializersSnapshotAsIs() {
    assertThat(
            FastStringSerializer.INSTANCE
                .snapshotConfiguration()
                .resolveSchemaCompatibility(StringSerializer.INSTANCE.snapshotConfiguration())
                .isCompatibleAsIs())
        .isTrue();
  }

  /** A POJO of weir's: its string fields are fast strings since KryoFree made them so. */
  public static class Row {
    public String id;
    public String name;
    public long at;

    public Row() {}

    Row(String id, String name, long at) {
      this.id = id;
      this.name = name;
      this.at = at;
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void pojosWhoseStringsStringSerializerWroteRestore(Backend backend) throws Exception {
    assertThat(KryoFree.pojoOf(Row.class).toString()).contains("FastString");
    List<Row> rows = List.of(new Row("r1", "Zelt ⛺", 1), new Row("r2", null, 2));

    List<Row> restored =
        StateThroughSavepoint.restore(
            rows, TypeInformation.of(Row.class), KryoFree.pojoOf(Row.class), Kind.LIST, backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().isEqualTo(rows);
  }

  private static String randomText(Random random) {
    StringBuilder text = new StringBuilder();
    int length = random.nextInt(300);
    for (int i = 0; i < length; i++) {
      text.append(
          switch (random.nextInt(4)) {
            case 0, 1 -> (char) random.nextInt(0x80);
            case 2 -> (char) random.nextInt(0x800);
            default -> (char) random.nextInt(0x10000);
          });
    }
    return text.toString();
  }

  private static byte[] bytes(TypeSerializer<String> serializer, String text) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(text, out);
    return out.getCopyOfBuffer();
  }
}
