package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streaming pass over {@code tracking.events} binds what the long way (tree, NUL check, JSON
 * Schema, binding) binds, to an equal event, and leaves everything else to the long way, so every
 * reason stays the same.
 */
class TrackingEventReaderTest {

  private static final EventCodec<TrackingEvent> CODEC =
      EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class);

  private static final String VALID =
      "{\"event_id\":\"e1\",\"project_id\":\"p1\",\"distinct_id\":\"d1\",\"name\":\"Viewed\","
          + "\"time\":\"2026-11-23T05:00:00.123Z\",\"properties\":{\"plan\":\"pro\",\"price\":19.90,"
          + "\"n\":12345678901,\"tags\":[\"a\",{\"b\":null,\"c\":true}],\"é\":\"\\u00e9\\\"\"}}";

  @ParameterizedTest
  @ValueSource(
      strings = {
        VALID,
        "{\"name\":\"n\",\"time\":\"2026-02-28T23:59:59Z\",\"distinct_id\":\"d\",\"event_id\":\"e\","
            + "\"project_id\":\"p\"}",
        "  {\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2024-02-29T00:00:00.000000001Z\", \"properties\" : { } }  ",
      })
  void bindsWhatTheLongWayBindsToAnEqualEvent(String json) throws Exception {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    TrackingEvent fast = TrackingEventReader.read(bytes);
    TrackingEvent slow = longWay(bytes);

    assertThat(fast).isNotNull().isEqualTo(slow);
    if (slow.properties() != null) {
      assertThat(fast.properties()).isInstanceOf(RawJsonObject.class);
      assertThat(Map.copyOf(fast.properties())).isEqualTo(Map.copyOf(slow.properties()));
    }
    assertThat(CODEC.decode(bytes)).isEqualTo(slow);
  }

  @Test
  void writesThePropertiesAsTheyArrived() throws Exception {
    TrackingEvent event = CODEC.decode(VALID.getBytes(StandardCharsets.UTF_8));
    String written = new String(CODEC.encode(event), StandardCharsets.UTF_8);

    assertThat(written).contains(VALID.substring(VALID.indexOf("\"properties\":")));
    JsonNode again = Json.mapper().readTree(written);
    assertThat(again).isEqualTo(Json.mapper().readTree(VALID));

    EventCodec<EnrichedTrackingEvent> enriched =
        EventCodec.of(EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class);
    byte[] out = enriched.encode(event.withCanonicalId("u1"));
    assertThat(enriched.decode(out)).isEqualTo(event.withCanonicalId("u1"));
    // A tree (not a byte stream) gets the parsed map.
    assertThat(Json.mapper().valueToTree(event).get("properties"))
        .isEqualTo(Json.mapper().readTree(VALID).get("properties"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        // not the plain form, yet valid: the long way reads them
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T06:00:00+01:00\"}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"0001-01-01T00:00:00Z\"}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\",\"properties\":{\"q\":\"\\\\u0000\"}}",
        "{\"event_id\":\"e\",\"event_id\":\"e2\",\"project_id\":\"p\",\"distinct_id\":\"d\","
            + "\"name\":\"n\",\"time\":\"2026-11-23T05:00:00Z\"}",
      })
  void leavesOtherValidFormsToTheLongWay(String json) throws Exception {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    assertThat(TrackingEventReader.read(bytes)).isNull();
    assertThat(CODEC.decode(bytes)).isEqualTo(longWay(bytes));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\"}",
        "{\"event_id\":\"\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\"}",
        "{\"event_id\":1,\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\"}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-02-30T05:00:00Z\"}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T24:00:00Z\"}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\",\"properties\":[1]}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\",\"properties\":null}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\",\"properties\":{\"q\":\"a\\u0000b\"}}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\",\"properties\":{\"a\\u0000\":1}}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\",\"extra\":1}",
        "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
            + "\"time\":\"2026-11-23T05:00:00Z\",\"properties\":{\"a\":1}",
        "[]",
      })
  void rejectsNothingItselfSoTheReasonIsTheLongWays(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    assertThat(TrackingEventReader.read(bytes)).isNull();
    assertThatThrownBy(() -> CODEC.decode(bytes))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage(reasonTheLongWay(bytes));
  }

  @Test
  void propertiesNestedBeyondTheLimitAreLeftToTheLongWay() {
    String deep = "{\"a\":".repeat(70) + "1" + "}".repeat(70);
    byte[] bytes =
        ("{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
                + "\"time\":\"2026-11-23T05:00:00Z\",\"properties\":"
                + deep
                + "}")
            .getBytes(StandardCharsets.UTF_8);
    assertThat(TrackingEventReader.read(bytes)).isNull();
    assertThatThrownBy(() -> CODEC.decode(bytes)).hasMessageStartingWith("not valid JSON");
  }

  @Test
  void aDeclaredRowCheckedAgainstTheSchemaBindsAsARow() throws Exception {
    EventCodec<DeclaredRow> rows = EventCodec.of(EventSchema.TRACKING_EVENTS, DeclaredRow.class);
    DeclaredRow row = rows.decode(VALID.getBytes(StandardCharsets.UTF_8));
    assertThat(row.fields()).containsEntry("event_id", "e1").containsKey("properties");
  }

  @Test
  void readsThePlainTimeAsInstantParseDoes() {
    for (String t :
        new String[] {
          "2026-11-23T05:00:00Z", "1999-12-31T23:59:59.9Z", "2000-01-01T00:00:00.123456789Z"
        }) {
      assertThat(PlainJson.instant(t)).isEqualTo(Instant.parse(t));
    }
    assertThat(PlainJson.instant("2026-11-23T05:00:00.Z")).isNull();
    assertThat(PlainJson.instant("2026-11-23T05:00:00.1234567890Z")).isNull();
    assertThat(PlainJson.instant("2026-11-23t05:00:00Z")).isNull();
  }

  private static TrackingEvent longWay(byte[] bytes) throws Exception {
    return LongWay.read(CODEC, bytes);
  }

  private static String reasonTheLongWay(byte[] bytes) {
    return LongWay.reason(CODEC, bytes);
  }
}
