package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.types.StateThroughSavepoint;
import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.common.types.StateThroughSavepoint.Kind;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.Json;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Events waiting in the Collator's "pending" state in a savepoint of an earlier weir restore: that
 * weir kept an event's details map through Kryo, today's {@link Collator#PENDING} does not.
 */
class PendingEventsSavepointTest {

  @ParameterizedTest
  @EnumSource(Backend.class)
  void pendingEventsOfAnEarlierSavepointComeBackWithTheirDetails(Backend backend) throws Exception {
    assertThat(TypeInformation.of(Collator.Pending.class).toString())
        .contains("GenericType<java.util.Map>");
    List<Collator.Pending> pending =
        List.of(
            pending("e1", "{\"pr\":12,\"title\":\"Fix ⛺\",\"labels\":[\"bug\"]}", false),
            pending("e2", null, true));

    List<Collator.Pending> restored =
        StateThroughSavepoint.restore(
            pending,
            TypeInformation.of(Collator.Pending.class),
            Collator.PENDING,
            Kind.MAP_VALUES, // as the Collator keeps them
            backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().isEqualTo(pending);
  }

  private static Collator.Pending pending(String id, String details, boolean overtaken)
      throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = details == null ? null : Json.mapper().readValue(details, Map.class);
    Collator.Pending p =
        new Collator.Pending(
            new ActivityEvent(
                id,
                "acme",
                "ana",
                "repository",
                "acme/weir",
                "starred",
                Instant.parse("2026-11-23T05:00:00Z"),
                map),
            1_000);
    p.overtaken = overtaken;
    return p;
  }
}
