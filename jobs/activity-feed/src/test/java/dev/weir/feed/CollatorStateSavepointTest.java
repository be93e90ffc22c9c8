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
 * The collator's state through a savepoint: state whose type changed migrates on restore (an
 * earlier weir kept a waiting event's details map and an entry's recent details list through Kryo,
 * today's {@link CollatorState#WAITING_EVENT} and {@link CollatorState#ENTRY} do not), and keys
 * written by Flink's POJO serializer are found.
 */
class CollatorStateSavepointTest extends CollatorTestBase {

  @ParameterizedTest
  @EnumSource(Backend.class)
  void pendingEventsOfAnEarlierSavepointComeBackWithTheirDetails(Backend backend) throws Exception {
    assertThat(TypeInformation.of(WaitingEvent.class).toString())
        .contains("GenericType<java.util.Map>");
    List<WaitingEvent> pending =
        List.of(
            waiting("e1", "{\"pr\":12,\"title\":\"Fix ⛺\",\"labels\":[\"bug\"]}", false),
            waiting("e2", null, true));

    List<WaitingEvent> restored =
        StateThroughSavepoint.restore(
            pending,
            TypeInformation.of(WaitingEvent.class),
            CollatorState.WAITING_EVENT,
            Kind.MAP_VALUES, // as the Collator keeps them
            backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().isEqualTo(pending);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void entriesOfAnEarlierSavepointComeBackWithTheirRecentDetails(Backend backend) throws Exception {
    assertThat(TypeInformation.of(FeedEntry.class).toString())
        .contains("recentDetails: GenericType<java.util.List>");
    assertThat(CollatorState.ENTRY.toString()).doesNotContain("GenericType");
    FeedEntry entry =
        FeedEntry.open(CollationKey.of(waiting("e1", null, false).event), 1_000, "e1");
    entry.addDetail(FeedEntry.Detail.of(waiting("e1", "{\"pr\":12}", false).event), 3);
    entry.addDetail(FeedEntry.Detail.of(waiting("e2", "{\"pr\":13}", false).event), 3);
    entry.stored = true;
    List<FeedEntry> entries = List.of(entry, FeedEntry.keyOnly("acme", "other"));

    List<FeedEntry> restored =
        StateThroughSavepoint.restore(
            entries,
            TypeInformation.of(FeedEntry.class),
            CollatorState.ENTRY,
            Kind.MAP_VALUES,
            backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().isEqualTo(entries);
    assertThat(restored.get(0).recentDetails).hasSize(2);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aSavepointKeyedByThePojoSerializerRestores(Backend backend) throws Exception {
    // Before CollationKeySerializer, Flink's POJO serializer wrote the keys: RocksDB finds a
    // key's state and its timers by those bytes.
    reopen(CollationKeySerializer.pojoType(), backend, null);
    send("e1", 0, "push");
    watermark(MIN);
    flushAt(1_000);
    send("e2", 2 * MIN, "push"); // waits for the watermark: a release timer
    var savepoint = harness.snapshot(1, 1_000);

    reopen(TypeInformation.of(CollationKey.class), backend, savepoint);
    send("e1", 0, "push"); // the replay: a duplicate only if the key's state was found
    watermark(3 * MIN); // fires the restored timer, which releases e2
    flushAt(2_000);

    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(2));
  }

  private static WaitingEvent waiting(String id, String details, boolean overtaken)
      throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = details == null ? null : Json.mapper().readValue(details, Map.class);
    WaitingEvent p =
        new WaitingEvent(
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
