package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.Json;
import dev.weir.schema.TrackingEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written tracking.enriched bytes are the codec's, byte for byte. */
class EnrichedJsonTest {

  private static final EventCodec<EnrichedTrackingEvent> CODEC =
      EventCodec.of(EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class);
  private static final EnrichedJson JSON = new EnrichedJson();

  @Test
  void writesWhatTheCodecWrites() throws Exception {
    Random random = new Random(27);
    Map<String, Object> map =
        Json.mapper().readValue("{\"plan\":\"pro\",\"price\":19.90,\"tags\":[\"a\"]}", Map.class);
    String[] names = {
      "Viewed", "ünïcode ⛺", "quote \" back \\ slash", "tab\tnew\nline\u0001", "😀"
    };
    for (int i = 0; i < 2_000; i++) {
      long seconds = random.nextLong(-40_000_000_000L, 260_000_000_000L);
      int nanos =
          switch (i % 4) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1_000;
            default -> random.nextInt(1_000_000_000);
          };
      EnrichedTrackingEvent e =
          new EnrichedTrackingEvent(
              "e" + i,
              "p" + i % 3,
              names[i % names.length],
              names[(i + 1) % names.length],
              Instant.ofEpochSecond(seconds, nanos),
              i % 3 == 0 ? null : map,
              "u" + i);
      assertThat(new String(JSON.encode(e), StandardCharsets.UTF_8))
          .isEqualTo(new String(CODEC.encode(e), StandardCharsets.UTF_8));
    }
  }

  @Test
  void eachEventsBytesAreItsOwnThoughTheBufferIsReused() {
    EnrichedJson json = new EnrichedJson();
    EnrichedTrackingEvent longer =
        new EnrichedTrackingEvent(
            "e-long", "p", "d".repeat(2_000), "Viewed", Instant.EPOCH, null, "u");
    EnrichedTrackingEvent shorter =
        new EnrichedTrackingEvent("e", "p", "d", "n", Instant.EPOCH, null, "u");

    byte[] first = json.encode(longer);
    byte[] firstCopy = first.clone();
    byte[] second = json.encode(shorter);

    assertThat(second).isEqualTo(CODEC.encode(shorter));
    assertThat(first).isEqualTo(firstCopy).isEqualTo(CODEC.encode(longer));
  }

  @Test
  void copiesRawPropertiesAsTheyArrived() throws Exception {
    String properties = "{\"price\":19.90, \"tags\":[\"a\"]}";
    TrackingEvent in =
        EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class)
            .decode(
                ("{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
                        + "\"time\":\"2026-11-23T05:00:00.5Z\",\"properties\":"
                        + properties
                        + "}")
                    .getBytes(StandardCharsets.UTF_8));
    EnrichedTrackingEvent out = in.withCanonicalId("u");

    byte[] bytes = JSON.encode(out);

    assertThat(new String(bytes, StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"event_id\":\"e\",\"project_id\":\"p\",\"distinct_id\":\"d\",\"name\":\"n\","
                + "\"time\":\"2026-11-23T05:00:00.500Z\",\"properties\":"
                + properties
                + ",\"canonical_id\":\"u\"}");
    assertThat(CODEC.decode(bytes)).isEqualTo(out);
  }
}
