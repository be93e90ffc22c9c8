package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JSON Schemas and the Java types agree: every sample of every version is accepted by the
 * current schema (backward compatibility), binds to the Java type, and what the Java type writes is
 * accepted again; every invalid sample is rejected with a reason.
 */
class SchemaSamplesTest {

  static Stream<Samples.Sample> validSamples() {
    return Samples.valid().stream();
  }

  static Stream<Samples.Sample> invalidSamples() {
    return Samples.invalid().stream();
  }

  @Test
  void everyTopicHasValidAndInvalidSamples() {
    for (EventSchema schema : EventSchema.values()) {
      assertThat(Samples.valid())
          .as("valid samples of " + schema.family())
          .anyMatch(s -> s.schema() == schema);
      assertThat(Samples.invalid())
          .as("invalid samples of " + schema.family())
          .anyMatch(s -> s.schema() == schema);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validSamples")
  void everySampleOfEveryVersionIsAcceptedByTheCurrentSchema(Samples.Sample sample)
      throws Exception {
    JsonNode document = Json.mapper().readTree(sample.bytes());
    assertThat(SchemaCatalog.violations(SchemaCatalog.load(sample.schema()), document)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validSamples")
  void javaTypeReadsTheSampleAndWritesWhatTheSchemaAccepts(Samples.Sample sample) throws Exception {
    EventCodec<Object> codec = codec(sample.schema());
    Object event = codec.decode(sample.bytes());
    byte[] written = codec.encode(event);

    JsonNode writtenDocument = Json.mapper().readTree(written);
    // The CDC codec reads the payload of a {schema, payload} record and writes the bare envelope.
    assertThat(SchemaCatalog.violations(SchemaCatalog.load(sample.schema()), writtenDocument))
        .as(new String(written, StandardCharsets.UTF_8))
        .isEmpty();
    // Nothing is lost on the way: reading what was written gives the same event again.
    assertThat(codec.encode(codec.decode(written))).isEqualTo(written);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidSamples")
  void invalidSamplesAreRejectedWithAReason(Samples.Sample sample) {
    assertThatThrownBy(() -> codec(sample.schema()).decode(sample.bytes()))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining(sample.schema().family());
  }

  @Test
  void malformedAndOversizedRecordsAreRejectedReadably() {
    EventCodec<ActivityEvent> codec =
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
    assertThatThrownBy(() -> codec.decode("{\"event_id\": }".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith("not valid JSON");
    assertThatThrownBy(() -> codec.decode(new byte[0])).hasMessageStartingWith("empty record");
    assertThatThrownBy(
            () ->
                codec
                    .withMaxBytes(10)
                    .decode("{\"event_id\":\"12345678\"}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("over the limit of 10 bytes");
    String deep = "[".repeat(Json.MAX_NESTING_DEPTH + 10) + "]".repeat(Json.MAX_NESTING_DEPTH + 10);
    assertThatThrownBy(() -> codec.decode(deep.getBytes(StandardCharsets.UTF_8)))
        .hasMessageStartingWith("not valid JSON");
  }

  @Test
  void aNulCharacterAnywhereIsRejectedWithItsPath() {
    EventCodec<ActivityEvent> codec =
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
    String event =
        "{\"event_id\":\"e\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":\"t\","
            + "\"element_id\":\"i\",\"action\":\"push\",\"occurred_at\":\"2021-07-21T08:00:00Z\"%s}";
    assertThatThrownBy(
            () ->
                codec.decode(
                    String.format(event, ",\"details\":{\"title\":\"a\\u0000b\"}")
                        .getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("$.details.title contains U+0000 (NUL), which PostgreSQL cannot store");
    assertThatThrownBy(
            () ->
                codec.decode(
                    String.format(event, ",\"details\":{\"x\\u0000\":1}")
                        .getBytes(StandardCharsets.UTF_8)))
        .hasMessageStartingWith("$.details (a field name) contains U+0000");
  }

  @Test
  void offsetTimestampsAreReadAsTheSameInstant() throws Exception {
    EventCodec<ActivityEvent> codec =
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
    ActivityEvent event =
        codec.decode(
            ("{\"event_id\":\"e\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":\"t\","
                    + "\"element_id\":\"i\",\"action\":\"push\",\"occurred_at\":\"2021-07-21T08:00:00.250+02:00\"}")
                .getBytes(StandardCharsets.UTF_8));
    assertThat(event.occurredAt()).isEqualTo(Instant.parse("2021-07-21T06:00:00.250Z"));
  }

  @SuppressWarnings("unchecked")
  private static EventCodec<Object> codec(EventSchema schema) {
    return EventCodec.of(schema, (Class<Object>) schema.javaType());
  }
}
