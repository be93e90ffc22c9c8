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
 * The Collator's state in a savepoint of an earlier weir restores: that weir kept a pending event's
 * details map and an entry's recent details list through Kryo, today's {@link Collator#PENDING} and
 * {@link Collator#ENTRY} do not, and Flink migrates the state on restore.
 */
class CollatorStateSavepointTest {

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

  @ParameterizedTest
  @EnumSource(Backend.class)
  void entriesOfAnEarlierSavepointComeBackWithTheirRecentDetails(Backend backend) throws Exception {
    assertThat(TypeInformation.of(FeedEntry.class).toString())
        .contains("recentDetails: GenericType<java.util.List>");
    assertThat(Collator.ENTRY.toString()).doesNotContain("GenericType");
    FeedEntry entry =
        FeedEntry.open(CollationKey.of(pending("e1", null, false).event), 1_000, "e1");
    entry.addDetail(FeedEntry.Detail.of(pending("e1", "{\"pr\":12}", false).event), 3);
    entry.addDetail(FeedEntry.Detail.of(pending("e2", "{\"pr\":13}", false).event), 3);
    entry.stored = true;
    List<FeedEntry> entries = List.of(entry, FeedEntry.keyOnly("acme", "other"));

    List<FeedEntry> restored =
        StateThroughSavepoint.restore(
            entries, TypeInformation.of(FeedEntry.class), Collator.ENTRY, Kind.MAP_VALUES, backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().isEqualTo(entries);
    assertThat(restored.get(0).recentDetails).hasSize(2);
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
