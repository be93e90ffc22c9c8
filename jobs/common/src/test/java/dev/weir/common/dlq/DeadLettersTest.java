package dev.weir.common.dlq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.kafka.Conversion;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Every dead letter fits the DLQ, whatever the record and its reason. */
class DeadLettersTest {

  private static final EventCodec<DeadLetter> DLQ =
      EventCodec.of(EventSchema.DLQ, DeadLetter.class).withMaxBytes(8 << 20);

  /** A valid activity event with {@code n} fields its schema forbids. */
  private static byte[] unknownFields(int n) {
    StringBuilder json =
        new StringBuilder(
            "{\"event_id\":\"e\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":"
                + "\"repository\",\"element_id\":\"x\",\"action\":\"push\",\"occurred_at\":"
                + "\"2026-11-24T10:00:00Z\"");
    for (int i = 0; i < n; i++) {
      json.append(",\"f").append(i).append("\":0");
    }
    return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  private static DeadLetter decodeToDeadLetter(byte[] value, int recordMaxBytes) throws Exception {
    var deserializer =
        new DecodingDeserializer<>(
            "activity-feed",
            EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class)
                .withMaxBytes(recordMaxBytes),
            TypeInformation.of(ActivityEvent.class),
            false,
            Conversion.none());
    List<Either<DeadLetter, ActivityEvent>> out = new ArrayList<>();
    deserializer.deserialize(
        new ConsumerRecord<>("activity.events", 1, 4242L, null, value),
        new Collector<>() {
          @Override
          public void collect(Either<DeadLetter, ActivityEvent> record) {
            out.add(record);
          }

          @Override
          public void close() {}
        });
    assertThat(out).hasSize(1);
    assertThat(out.get(0).isLeft()).isTrue();
    return out.get(0).left();
  }

  @Test
  void sixtyThousandViolationsMakeABoundedReasonAndALetterUnderTheLimit() throws Exception {
    byte[] value = unknownFields(60_000);
    assertThat(value.length).isBetween(600_000, 700_000);

    DeadLetter letter = decodeToDeadLetter(value, 1 << 20);

    assertThat(letter.reason())
        .startsWith("violates activity.events v")
        .contains("property 'f0' is not defined")
        .contains("; … and 59990 more")
        .contains(
            "[raw value: first 262144 of "
                + value.length
                + " bytes kept, "
                + (value.length - 262_144)
                + " more bytes at activity.events-1@4242]");
    assertThat(letter.reason().length()).isLessThanOrEqualTo(DeadLetters.MAX_REASON_CHARS);
    assertThat(letter.sourceTopic()).isEqualTo("activity.events");
    assertThat(letter.sourcePartition()).isEqualTo(1);
    assertThat(letter.sourceOffset()).isEqualTo(4242);
    assertThat(letter.rawValueTruncated()).isTrue();
    assertThat(letter.rawValue()).isEqualTo(Arrays.copyOf(value, DeadLetters.MAX_RAW_BYTES));
    byte[] json = DLQ.encode(letter);
    assertThat(json.length).isLessThanOrEqualTo(DeadLetters.maxDeadLetterBytes());
    // The letter is valid weir.dlq and reads back as written.
    assertThat(DLQ.decode(json).reason()).isEqualTo(letter.reason());
  }

  @Test
  void theLargestLetterFitsKafkasDefaultRecordLimit() {
    assertThat(DeadLetters.maxDeadLetterBytes()).isLessThan(1 << 20);
  }

  @Test
  void aLetterOfTheWorstKeyValueAndReasonStaysUnderItsLimit() throws Exception {
    // Every reason character escaped in six bytes by JSON, a key and value of 4 MB.
    String reason = "\u0001".repeat(1_000_000);
    byte[] huge = new byte[4 << 20];
    Arrays.fill(huge, (byte) 0xff);
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>("t".repeat(249), 0, Long.MAX_VALUE, huge, huge);
    DeadLetter letter = DeadLetters.of("j".repeat(200), record, reason, 8 << 20);

    assertThat(letter.rawKey()).hasSize(DeadLetters.MAX_RAW_BYTES);
    assertThat(letter.rawValue()).hasSize(DeadLetters.MAX_RAW_BYTES);
    assertThat(letter.reason())
        .hasSizeLessThanOrEqualTo(DeadLetters.MAX_REASON_CHARS)
        .contains("… [reason cut: ")
        .contains("raw key: first 262144 of 4194304 bytes kept");
    assertThat(DLQ.encode(letter).length).isLessThanOrEqualTo(DeadLetters.maxDeadLetterBytes());
  }

  @Test
  void aShortLetterIsKeptWhole() {
    byte[] value = "{\"x\":1}".getBytes(StandardCharsets.UTF_8);
    DeadLetter letter =
        DeadLetters.rejected(
            "identity", new SourcePosition("t", 0, 7, null), value, "a reason a person reads");
    assertThat(letter.reason()).isEqualTo("a reason a person reads");
    assertThat(letter.rawValue()).isEqualTo(value);
    assertThat(letter.rawValueTruncated()).isNull();
  }

  @Test
  void aRecordUnderTheJobsLimitButOverTheLettersIsCutAtTheLetters() {
    byte[] value = new byte[DeadLetters.MAX_RAW_BYTES + 10];
    DeadLetter letter =
        DeadLetters.of(
            "j", new ConsumerRecord<>("t", 0, 3L, null, value), "over the limit", 1 << 20);
    assertThat(letter.rawValue()).hasSize(DeadLetters.MAX_RAW_BYTES);
    assertThat(letter.reason())
        .isEqualTo(
            "over the limit [raw value: first 262144 of 262154 bytes kept, 10 more bytes at t-0@3]");
  }

  @Test
  void aCutReasonKeepsItsBeginningAndNeverHalfASurrogatePair() {
    String emoji = "😀".repeat(5000); // 10,000 chars
    String bounded = DeadLetters.boundedReason(emoji, 100);
    assertThat(bounded).hasSizeLessThanOrEqualTo(100).startsWith("😀😀").endsWith("characters]");
    String kept = bounded.substring(0, bounded.indexOf('…'));
    assertThat(Character.isHighSurrogate(kept.charAt(kept.length() - 1))).isFalse();
    int cut = Integer.parseInt(bounded.replaceAll(".*reason cut: (\\d+) more.*", "$1"));
    assertThat(kept.length() + cut).isEqualTo(emoji.length());
    assertThat(DeadLetters.boundedReason("", 100)).isEqualTo("(no reason given)");
  }
}
