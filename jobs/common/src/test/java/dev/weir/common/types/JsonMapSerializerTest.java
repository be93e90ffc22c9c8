package dev.weir.common.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.weir.schema.Json;
import dev.weir.schema.RawJsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Flink's contract tests for a serializer, and the take-over of Kryo's state. */
class JsonMapSerializerTest extends SerializerTestBase<Map<String, Object>> {

  static Map<String, Object> json(String text) {
    try {
      return Json.mapper().readValue(text, new TypeReference<Map<String, Object>>() {});
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  @Override
  protected TypeSerializer<Map<String, Object>> createSerializer() {
    return JsonMapSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  protected Class<Map<String, Object>> getTypeClass() {
    return (Class) Map.class;
  }

  @Override
  @SuppressWarnings("unchecked")
  protected Map<String, Object>[] getTestData() {
    return new Map[] {
      json("{}"),
      json("{\"plan\":\"pro\",\"seats\":3}"),
      json(
          "{\"price\":19.90,\"big\":12345678901234567890,\"long\":9000000000,\"ok\":true,"
              + "\"none\":null,\"tags\":[\"a\",1,2.5,[],{}],\"nested\":{\"city\":\"Zürich ⛺\"}}"),
      null,
      RawJsonObject.of(
          "{\"price\":19.90,\"tags\":[\"a\",{\"b\":null}],\"city\":\"Zürich ⛺\"}"
              .getBytes(StandardCharsets.UTF_8)),
    };
  }

  @Test
  void stateWrittenByKryoIsMigrated() {
    KryoSerializer<Map<String, Object>> kryo =
        new KryoSerializer<>(getTypeClass(), new SerializerConfigImpl());
    assertThat(
            JsonMapSerializer.INSTANCE
                .snapshotConfiguration()
                .resolveSchemaCompatibility(kryo.snapshotConfiguration())
                .isCompatibleAfterMigration())
        .isTrue();
  }

  @Test
  void writesEachValueWithItsTypeAndNoClassNames() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(16);
    JsonMapSerializer.INSTANCE.serialize(json("{\"a\":1}"), out);
    // one entry; key "a" (1 byte); tag 2 (int) and the value 1
    assertThat(out.getCopyOfBuffer()).containsExactly(0, 0, 0, 1, 0, 0, 0, 1, 'a', 2, 0, 0, 0, 1);
  }

  @Test
  void aValueJacksonWouldNotReadIsRefusedByName() {
    Map<String, Object> odd = new HashMap<>(Map.of("when", Instant.EPOCH));
    assertThatThrownBy(
            () -> JsonMapSerializer.INSTANCE.serialize(odd, new DataOutputSerializer(16)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.time.Instant");
  }

  @Test
  void aCopySharesNoContainerWithItsOriginal() {
    Map<String, Object> original = json("{\"tags\":[\"a\"],\"nested\":{\"b\":1}}");
    Map<String, Object> copy = JsonMapSerializer.INSTANCE.copy(original);

    ((List<Object>) original.get("tags")).add("changed");
    ((Map<String, Object>) original.get("nested")).put("b", 2);

    assertThat(copy).isEqualTo(json("{\"tags\":[\"a\"],\"nested\":{\"b\":1}}"));
  }

  @Test
  void rawJsonTravelsAsItsBytesAndIsNotCopied() throws Exception {
    byte[] json = "{\"a\": 1 ,\"b\":[2.50]}".getBytes(StandardCharsets.UTF_8);
    RawJsonObject raw = RawJsonObject.of(json);
    DataOutputSerializer out = new DataOutputSerializer(16);
    JsonMapSerializer.INSTANCE.serialize(raw, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());

    Map<String, Object> back = JsonMapSerializer.INSTANCE.deserialize(in);

    assertThat(back).isInstanceOf(RawJsonObject.class);
    assertThat(((RawJsonObject) back).json()).isEqualTo(json);
    assertThat(back).isEqualTo(json("{\"a\":1,\"b\":[2.5]}"));
    assertThat(JsonMapSerializer.INSTANCE.copy(raw)).isSameAs(raw);
  }
}
