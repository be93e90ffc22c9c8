package dev.weir.common.dlq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.kafka.Conversion;
import dev.weir.common.kafka.Watermarks;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class DecodingDeserializerTest {

  private static final String VALID =
      "{\"event_id\":\"e1\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":\"repository\","
          + "\"element_id\":\"w/r\",\"action\":\"push\",\"occurred_at\":\"2021-07-21T06:00:00Z\"}";

  private final DecodingDeserializer<ActivityEvent, ActivityEvent> activity =
      new DecodingDeserializer<>(
          "activity-feed",
          EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class),
          TypeInformation.of(ActivityEvent.class),
          false,
          Conversion.none());

  @Test
  void validRecordsBecomeEvents() throws Exception {
    List<Either<DeadLetter, ActivityEvent>> out = deserialize(activity, record(7, VALID));
    assertThat(out).singleElement().satisfies(e -> assertThat(e.right().eventId()).isEqualTo("e1"));
  }

  @Test
  void badRecordsBecomeDeadLettersWithOriginReasonAndRawBytes() throws Exception {
    byte[] raw = "{\"event_id\": oops".getBytes(StandardCharsets.UTF_8);
    DeadLetter letter = deserialize(activity, record(42, raw)).get(0).left();
    assertThat(letter.job()).isEqualTo("activity-feed");
    assertThat(letter.sourceTopic()).isEqualTo("activity.events");
    assertThat(letter.sourcePartition()).isEqualTo(1);
    assertThat(letter.sourceOffset()).isEqualTo(42);
    assertThat(letter.rawValue()).isEqualTo(raw);
    assertThat(letter.reason()).startsWith("not valid JSON");
  }

  @Test
  void schemaViolationsNameTheField() throws Exception {
    DeadLetter letter =
        deserialize(activity, record(1, VALID.replace("\"action\":\"push\",", ""))).get(0).left();
    assertThat(letter.reason()).contains("activity.events").contains("action");
  }

  @Test
  void tombstonesAreSkippedOnlyWhereTheyAreExpected() throws Exception {
    DecodingDeserializer<ChangeEvent, ChangeEvent> cdc =
        new DecodingDeserializer<>(
            "search-index",
            EventCodec.of(EventSchema.CDC_CATALOG, ChangeEvent.class),
            TypeInformation.of(ChangeEvent.class),
            true,
            Conversion.none());
    assertThat(deserialize(cdc, record(1, (byte[]) null))).isEmpty();
    assertThat(deserialize(activity, record(1, (byte[]) null)))
        .singleElement()
        .satisfies(e -> assertThat(e.left().reason()).startsWith("empty record"));
  }

  @Test
  void anEventTimeFarAheadOfTheClockIsADeadLetterNotAWatermark() throws Exception {
    DecodingDeserializer<ActivityEvent, ActivityEvent> onEventTime =
        new DecodingDeserializer<>(
            "activity-feed",
            EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class),
            TypeInformation.of(ActivityEvent.class),
            false,
            Watermarks.<ActivityEvent>boundedOutOfOrderness(
                    (e, ts) -> e.occurredAt().toEpochMilli(),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(10))
                .check(Duration.ofHours(1)));
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    String soon = now.plus(Duration.ofMinutes(50)).toString();
    String later = now.plus(Duration.ofMinutes(70)).toString();
    assertThat(deserialize(onEventTime, record(1, VALID.replace("2021-07-21T06:00:00Z", soon))))
        .singleElement()
        .satisfies(e -> assertThat(e.isRight()).isTrue());
    assertThat(deserialize(onEventTime, record(2, VALID.replace("2021-07-21T06:00:00Z", later))))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.left().reason())
                    .startsWith("event time " + later)
                    .contains(" min ahead of the clock (event-time.max-ahead is 1 h)"));
    assertThat(
            deserialize(
                    onEventTime,
                    record(3, VALID.replace("2021-07-21T06:00:00Z", "9999-12-31T00:00:00Z")))
                .get(0)
                .left()
                .reason())
        .contains(" days ahead of the clock");
    // Far in the past is a late event, not a hazard: it goes on.
    assertThat(
            deserialize(
                    onEventTime,
                    record(4, VALID.replace("2021-07-21T06:00:00Z", "0001-01-01T00:00:00Z")))
                .get(0)
                .isRight())
        .isTrue();
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset, String value) {
    return record(offset, value.getBytes(StandardCharsets.UTF_8));
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
    return new ConsumerRecord<>("activity.events", 1, offset, null, value);
  }

  private static <T> List<Either<DeadLetter, T>> deserialize(
      DecodingDeserializer<?, T> d, ConsumerRecord<byte[], byte[]> r) throws Exception {
    List<Either<DeadLetter, T>> out = new ArrayList<>();
    d.deserialize(
        r,
        new Collector<>() {
          @Override
          public void collect(Either<DeadLetter, T> record) {
            out.add(record);
          }

          @Override
          public void close() {}
        });
    return out;
  }
}
