package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.IdentityEvent;
import java.time.Instant;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.types.PojoTestUtils;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class ReadIdentityEventTest {

  private static final IdentityEvent EVENT =
      new IdentityEvent(
          "e1", IdentityEvent.Type.ALIAS, "p", "d1", "d2", Instant.parse("2026-11-23T00:00:00Z"));

  @Test
  void keepsWhereTheEventWasRead() throws Exception {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>("identity.events", 3, 4711L, new byte[0], new byte[0]);

    ReadIdentityEvent read = new ReadIdentityEvent.FromRecord().convert(EVENT, record);

    assertThat(read.event).isEqualTo(EVENT);
    assertThat(read.source).isEqualTo(new SourcePosition("identity.events", 3, 4711L, null));
  }

  @Test
  void aRejectionNamesThatPosition() {
    DeadLetter letter =
        DeadLetters.rejected(
            "identity",
            new SourcePosition("identity.events", 3, 4711L, 1_700_000_000_000L),
            new byte[] {1},
            "rejected");

    assertThat(letter.sourcePartition()).isEqualTo(3);
    assertThat(letter.sourceOffset()).isEqualTo(4711L);
    assertThat(letter.sourceTimestamp()).isEqualTo(1_700_000_000_000L);
  }

  @Test
  void travelsBetweenOperatorsWithoutKryo() throws Exception {
    PojoTestUtils.assertSerializedAsPojoWithoutKryo(SourcePosition.class);
    TypeSerializer<ReadIdentityEvent> serializer =
        TypeInformation.of(ReadIdentityEvent.class).createSerializer(new ExecutionConfig());
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(
        new ReadIdentityEvent(EVENT, new SourcePosition("identity.events", 3, 4711L, null)), out);

    ReadIdentityEvent back =
        serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));

    assertThat(back.event).isEqualTo(EVENT);
    assertThat(back.source.offset).isEqualTo(4711L);
  }
}
