package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.junit.jupiter.api.Test;

/** A duplicate counts once while its id is remembered, and ids are remembered for a bound time. */
class EventIdsTest extends CollatorTestBase {

  @Test
  void aDuplicatedEventIdCountsOnce() throws Exception {
    send("e1", 0, "push");
    send("e1", 0, "push");
    watermark(MIN);
    send("e1", 0, "push"); // again, after it was applied
    flushAt(1_000);
    assertThat(latestEntries().values())
        .singleElement()
        .satisfies(e -> assertThat(e.eventCount).isEqualTo(1));
  }

  /**
   * A key keeps its first {@value Clock#IDS_IN_CLOCK} ids in its clock (read with it: no state call
   * of its own per event); beyond that they all move to seen, and duplicates are found in both
   * places.
   */
  @Test
  void idsStayInTheClockUntilTheyAreManyThenMoveToSeen() throws Exception {
    for (int i = 0; i < Clock.IDS_IN_CLOCK; i++) {
      send("e" + i, i * 1_000L, "push");
    }
    send("e3", 3_000, "push"); // a duplicate found in the clock
    assertThat(clock(key("push")).seenIds).hasSize(Clock.IDS_IN_CLOCK);
    assertThat(idsInSeen(key("push"))).isZero();

    send("e" + Clock.IDS_IN_CLOCK, Clock.IDS_IN_CLOCK * 1_000L, "push");
    assertThat(clock(key("push")).seenIds).isNull();
    assertThat(idsInSeen(key("push"))).isEqualTo(Clock.IDS_IN_CLOCK + 1);
    send("e3", 3_000, "push"); // found in seen
    send("e" + Clock.IDS_IN_CLOCK, Clock.IDS_IN_CLOCK * 1_000L, "push");

    watermark(MIN);
    flushAt(1_000);
    assertThat(latestEntries().values())
        .extracting(e -> e.eventCount)
        .containsExactly(Clock.IDS_IN_CLOCK + 1);
  }

  @Test
  void aKeyThatNeverPausesRemembersTheIdsOfOneDedupeWindowOnly() throws Exception {
    // A bot: one event a minute for 3 days. Without forgetting, the key would hold 4,320 ids
    // until the first entry is archived 30 days later.
    int events = 3 * 24 * 60;
    int mostRemembered = 0;
    for (int i = 0; i < events; i++) {
      send("e" + i, i * MIN, "push");
      watermark(i * MIN - 5_000);
      mostRemembered = Math.max(mostRemembered, rememberedIds(key("push")));
    }
    // The ids of entries whose last event is within a day of the watermark: one day of events,
    // plus at most one entry's span (1 h) that started before it.
    assertThat(mostRemembered).isBetween(24 * 60, 25 * 60 + 1);
    // One timer per entry (72 hourly entries) and at most the one per waiting event: not per id.
    assertThat(harness.numEventTimeTimers()).isLessThanOrEqualTo(3 * 24 + 6);

    // Within the window a duplicate still counts once; after it, it counts again (documented).
    send("e" + (events - 1), (events - 1) * MIN, "push");
    send("e0", 0, "push");
    watermark(events * MIN);
    flushAt(1_000);
    assertThat(latestEntries().values().stream().mapToInt(e -> e.eventCount).sum())
        .isEqualTo(events + 1);
  }

  /**
   * Ids in seen (a key that remembered more than its clock holds) are forgotten by the entry that
   * spans their time; the ids of waiting events are kept.
   */
  @Test
  void idsInSeenAreForgottenByTheirEntryAndWaitingOnesKept() throws Exception {
    send("e1", 0, "push");
    send("e2", MIN, "push");
    watermark(2 * MIN);
    // Moved from the clock to seen, as a 17th id would move them.
    Clock clock = clock(key("push"));
    assertThat(clock.seenIds).extracting(id -> id.eventId).containsExactly("e1", "e2");
    assertThat(idsInSeen(key("push"))).isZero();
    List<Clock.SeenId> ids = clock.seenIds;
    clock.seenIds = null;
    setClock(key("push"), clock);
    onKey(
        key("push"),
        () -> {
          MapState<String, Long> seen = seen();
          for (Clock.SeenId id : ids) {
            seen.put(id.eventId, id.at);
          }
          assertThat(seen.get("e1")).isEqualTo(T0.toEpochMilli());
          return null;
        });
    send("e3", 2 * 24 * 60 * MIN, "push"); // waits: the watermark is before it
    watermark(2 * 24 * 60 * MIN - 1); // a day past the entry's last event: its ids forgotten

    // e3, waiting, and e2: at the frontier, where a waiting event may still be, so kept.
    assertThat(rememberedIds(key("push"))).isEqualTo(2);
    send("e1", 0, "push"); // no longer a duplicate: it comes more than a day late
    send("e3", 2 * 24 * 60 * MIN, "push"); // still one
    watermark(2 * 24 * 60 * MIN + 1);
    flushAt(1_000);
    assertThat(latestEntries().values().stream().mapToInt(e -> e.eventCount).sum()).isEqualTo(4);
  }
}
