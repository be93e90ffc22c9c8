package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streaming pass over {@code activity.events} binds what the long way (tree, NUL check, JSON
 * Schema, binding) binds, to an equal event whose details are the JSON Jackson writes for the long
 * way's map, and leaves everything else to the long way, so every reason stays the same.
 */
class ActivityEventReaderTest {

  private static final EventCodec<ActivityEvent> CODEC =
      EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);

  private static final String HEAD =
      "{\"event_id\":\"e1\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":\"repo\","
          + "\"element_id\":\"r1\",\"action\":\"push\",\"occurred_at\":\"2026-11-23T05:00:00.123Z\"";

  @ParameterizedTest
  @ValueSource(
      strings = {
        HEAD + "}",
        HEAD + ",\"details\":{}}",
        HEAD + ",\"details\":{\"n\":0}}",
        HEAD
            + ", \"details\" : {\"branch\":\"main\", \"n\":-0,\"big\":12345678901,"
            + "\"huge\":123456789012345678901234567890,\"ok\":true,\"no\":false,\"none\":null,"
            + "\"é\\\"\":\"\\u00e9\\\"\\n\\/\\u2028\",\"tab\":\"a\\tb\"}}",
        "  {\"details\":{\"x\":\"y\"},\"action\":\"push\",\"occurred_at\":\"2024-02-29T00:00:00Z\","
            + "\"element_id\":\"r\",\"element_type\":\"t\",\"actor_id\":\"a\","
            + "\"workspace_id\":\"w\",\"event_id\":\"e\"}  ",
      })
  void bindsWhatTheLongWayBindsAndWritesItsDetailsAsJacksonWritesThem(String json)
      throws Exception {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    ActivityEvent fast = ActivityEventReader.read(bytes);
    ActivityEvent slow = longWay(bytes);

    assertThat(fast).isNotNull().isEqualTo(slow);
    assertThat(CODEC.decode(bytes)).isEqualTo(slow);
    if (slow.details() != null) {
      assertThat(fast.details()).isInstanceOf(RawJsonObject.class);
      assertThat(new LinkedHashMap<>(fast.details())).isEqualTo(slow.details());
      assertThat(new String(((RawJsonObject) fast.details()).json(), StandardCharsets.UTF_8))
          .isEqualTo(Json.mapper().writeValueAsString(slow.details()));
    }
  }

  static Stream<String> otherValidForms() {
    return Stream.of(
        // valid, but not the plain form: the long way reads them
        HEAD + ",\"details\":{\"price\":19.90}}",
        HEAD + ",\"details\":{\"n\":1e2}}",
        HEAD + ",\"details\":{\"a\":1,\"a\":2}}",
        HEAD + ",\"details\":{\"q\":\"\\\\u0000\",\"long\":\"" + "😀".repeat(600) + "\"}}",
        "{\"event_id\":\"e\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":\"t\","
            + "\"element_id\":\"r\",\"action\":\"push\",\"occurred_at\":\"2026-11-23T06:00:00+01:00\"}",
        HEAD.replace("\"action\":\"push\"", "\"action\":\"push\",\"action\":\"pull\"") + "}",
        HEAD + "} {}",
        // outside the Basic Multilingual Plane, and a lone surrogate: written by the long way
        HEAD + ",\"details\":{\"emoji\":\"\uD83D\uDE00 \\uD83D\\uDE00\"}}",
        HEAD + ",\"details\":{\"lone\":\"\\ud800\"}}",
        HEAD + ",\"details\":{\"\\ud800\":1}}");
  }

  @ParameterizedTest
  @MethodSource("otherValidForms")
  void leavesOtherValidFormsToTheLongWay(String json) throws Exception {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    assertThat(ActivityEventReader.read(bytes)).isNull();
    assertThat(CODEC.decode(bytes)).isEqualTo(longWay(bytes));
  }

  static Stream<String> invalidRecords() {
    return Stream.of(
        HEAD.replace(",\"action\":\"push\"", "") + "}",
        HEAD.replace("\"e1\"", "\"\"") + "}",
        HEAD.replace("\"e1\"", "1") + "}",
        HEAD.replace("\"repo\"", "\"" + "t".repeat(65) + "\"") + "}",
        HEAD.replace("05:00:00.123Z", "24:00:00Z") + "}",
        HEAD.replace("2026-11-23", "2026-02-30") + "}",
        HEAD + ",\"details\":null}",
        HEAD + ",\"details\":[1]}",
        HEAD + ",\"details\":{\"nested\":{\"a\":1}}}",
        HEAD + ",\"details\":{\"list\":[1]}}",
        HEAD + ",\"details\":{\"q\":\"a\\u0000b\"}}",
        HEAD + ",\"details\":{\"a\\u0000\":1}}",
        HEAD + ",\"details\":{\"long\":\"" + "x".repeat(1025) + "\"}}",
        HEAD
            + ",\"details\":{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,"
            + "\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"p\":1,\"q\":1}}",
        HEAD + ",\"extra\":1}",
        HEAD + ",\"details\":{\"a\":1}",
        "[]");
  }

  @ParameterizedTest
  @MethodSource("invalidRecords")
  void rejectsNothingItselfSoTheReasonIsTheLongWays(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    assertThat(ActivityEventReader.read(bytes)).isNull();
    assertThatThrownBy(() -> CODEC.decode(bytes))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage(reasonTheLongWay(bytes));
  }

  @Test
  void aDeclaredRowCheckedAgainstTheSchemaBindsAsARow() throws Exception {
    EventCodec<DeclaredRow> rows = EventCodec.of(EventSchema.ACTIVITY_EVENTS, DeclaredRow.class);
    DeclaredRow row =
        rows.decode((HEAD + ",\"details\":{\"n\":1}}").getBytes(StandardCharsets.UTF_8));
    assertThat(row.fields())
        .containsEntry("event_id", "e1")
        .containsEntry("details", Map.of("n", 1));
  }

  private static ActivityEvent longWay(byte[] bytes) throws Exception {
    return LongWay.read(CODEC, bytes);
  }

  private static String reasonTheLongWay(byte[] bytes) {
    return LongWay.reason(CODEC, bytes);
  }
}
