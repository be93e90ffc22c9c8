package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.types.StateThroughSavepoint;
import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.common.types.StateThroughSavepoint.Kind;
import dev.weir.schema.Json;
import dev.weir.schema.TrackingEvent;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tracking events waiting for a lookup (the Enricher's list state) in a savepoint of an earlier
 * weir restore: that weir kept them with Flink's default type, where the properties map went
 * through Kryo; today's {@link Enricher#EVENT} does not, and Flink migrates the state on restore.
 */
class WaitingEventsSavepointTest {

  private static final TypeInformation<TrackingEvent> BEFORE =
      TypeInformation.of(TrackingEvent.class);

  @Test
  void theEarlierTypeKeptThePropertiesInKryoAndTodaysDoesNot() {
    assertThat(BEFORE.toString()).contains("GenericType<java.util.Map>");
    assertThat(Enricher.EVENT.toString()).doesNotContain("GenericType").contains("JsonMap");
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void eventsWaitingInAnEarlierSavepointComeBackWithTheirProperties(Backend backend)
      throws Exception {
    List<TrackingEvent> waiting =
        List.of(
            event("e1", "{\"plan\":\"pro\",\"price\":19.90,\"tags\":[\"a\",{\"b\":1}]}"),
            event("e2", "{}"),
            new TrackingEvent("e3", "p1", "d1", "Signed Up", Instant.EPOCH, null));

    assertThat(StateThroughSavepoint.restore(waiting, BEFORE, Enricher.EVENT, Kind.LIST, backend))
        .containsExactlyElementsOf(waiting);
  }

  private static TrackingEvent event(String id, String properties) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = Json.mapper().readValue(properties, Map.class);
    return new TrackingEvent(id, "p1", "d1", "Viewed", Instant.parse("2026-11-23T05:00:00Z"), map);
  }
}
