package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Flink's contract tests for a serializer, the POJO serializer's bytes (RocksDB keys and timers of
 * earlier savepoints), and the take-over of its snapshot. The Collator restored from such a
 * savepoint: {@code CollatorStateSavepointTest.aSavepointKeyedByThePojoSerializerRestores}.
 */
class CollationKeySerializerTest extends SerializerTestBase<CollationKey> {

  private static final CollationKey[] KEYS = {
    new CollationKey("acme", "ana", "repository", "acme/weir", "starred"),
    new CollationKey("", "", "", "", ""),
    new CollationKey("wörk ⛺", "𝄞 actor", "x".repeat(300), "acme/weir", "push"),
    new CollationKey(null, "ana", null, "acme/weir", null),
  };

  @Override
  protected TypeSerializer<CollationKey> createSerializer() {
    return new CollationKeySerializer();
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<CollationKey> getTypeClass() {
    return CollationKey.class;
  }

  @Override
  protected CollationKey[] getTestData() {
    return KEYS;
  }

  @Test
  void writesThePojoSerializersBytes() throws Exception {
    TypeSerializer<CollationKey> pojo = pojoSerializer();
    for (CollationKey key : KEYS) {
      assertThat(bytes(new CollationKeySerializer(), key))
          .as("%s", key)
          .containsExactly(bytes(pojo, key));
    }
    assertThat(bytes(new CollationKeySerializer(), null)).containsExactly(bytes(pojo, null));
  }

  @Test
  void theRecordsTypeIsKeyedByIt() {
    assertThat(TypeInformation.of(CollationKey.class).createSerializer(new SerializerConfigImpl()))
        .isInstanceOf(CollationKeySerializer.class);
  }

  @Test
  void takesOverThePojoSerializersSnapshotAsIs() {
    var snapshot = new CollationKeySerializer().snapshotConfiguration();
    assertThat(
            snapshot
                .resolveSchemaCompatibility(pojoSerializer().snapshotConfiguration())
                .isCompatibleAsIs())
        .isTrue();
    assertThat(snapshot.resolveSchemaCompatibility(snapshot).isCompatibleAsIs()).isTrue();
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void refusesAnotherTypesSnapshot() {
    var other =
        (org.apache.flink.api.common.typeutils.TypeSerializerSnapshot)
            StringSerializer.INSTANCE.snapshotConfiguration();
    assertThat(
            new CollationKeySerializer()
                .snapshotConfiguration()
                .resolveSchemaCompatibility(other)
                .isIncompatible())
        .isTrue();
  }

  private static TypeSerializer<CollationKey> pojoSerializer() {
    return CollationKeySerializer.pojoType().createSerializer(new SerializerConfigImpl());
  }

  private static byte[] bytes(TypeSerializer<CollationKey> serializer, CollationKey key)
      throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(key, out);
    return out.getCopyOfBuffer();
  }
}
