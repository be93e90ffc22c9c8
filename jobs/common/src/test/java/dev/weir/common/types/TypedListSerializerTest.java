package dev.weir.common.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.junit.jupiter.api.Test;

/** Flink's contract tests for a serializer, and the take-over of Kryo's state. */
class TypedListSerializerTest extends SerializerTestBase<List<TypedListSerializerTest.Item>> {

  /** A POJO element, as FeedEntry.Detail. */
  public static class Item {
    public long at;
    public String text;

    public Item() {}

    Item(long at, String text) {
      this.at = at;
      this.text = text;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Item i && i.at == at && Objects.equals(i.text, text);
    }

    @Override
    public int hashCode() {
      return Objects.hash(at, text);
    }
  }

  private static final TypeInformation<List<Item>> TYPE =
      new TypedListTypeInfo<>(KryoFree.pojoOf(Item.class));

  @Override
  protected TypeSerializer<List<Item>> createSerializer() {
    return TYPE.createSerializer(new SerializerConfigImpl());
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  protected Class<List<Item>> getTypeClass() {
    return (Class) List.class;
  }

  @Override
  @SuppressWarnings("unchecked")
  protected List<Item>[] getTestData() {
    List<Item> withNull = new ArrayList<>();
    withNull.add(new Item(1, null));
    return new List[] {
      new ArrayList<>(), new ArrayList<>(List.of(new Item(1, "a"), new Item(2, "⛺"))), withNull,
    };
  }

  @Test
  void stateWrittenByKryoIsMigrated() {
    KryoSerializer<List<Item>> kryo =
        new KryoSerializer<>(getTypeClass(), new SerializerConfigImpl());
    assertThat(
            createSerializer()
                .snapshotConfiguration()
                .resolveSchemaCompatibility(kryo.snapshotConfiguration())
                .isCompatibleAfterMigration())
        .isTrue();
  }

  /** A POJO with lists, as SearchDocument (category path) and FeedEntry (recent details). */
  public static class WithLists {
    public List<String> path;
    public List<Item> items;
  }

  @Test
  void listsOfPojosAndOfStringsAreNotKryos() {
    assertThat(TypeInformation.of(WithLists.class).toString()).contains("GenericType");
    assertThat(KryoFree.pojoOf(WithLists.class).toString())
        .doesNotContain("GenericType")
        .contains("path: TypedList<String>");
  }
}
