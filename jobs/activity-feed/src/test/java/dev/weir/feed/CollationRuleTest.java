package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.ActivityEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The collation rule as a function of event times: no harness, no state. */
class CollationRuleTest {

  private static final long MIN = 60_000;
  private static final long DAY = 24 * 60 * MIN;
  private static final long T0 = Instant.parse("2021-07-21T06:00:00Z").toEpochMilli();
  private static final CollationKey KEY =
      new CollationKey("acme", "ana", "repository", "acme/weir", "push");

  /** gap 10 min, max span 1 h, archive after 30 d, 3 details, ids remembered for 1 d. */
  private final CollationRule rule = new CollationRule(CollatorTestBase.SETTINGS);

  @Test
  void anEventJoinsWithinTheGapOfTheLastEventAndTheMaxSpanOfTheFirst() {
    FeedEntry open = entry(T0, T0 + 5 * MIN);
    assertThat(rule.joins(open, T0 + 15 * MIN)).isTrue(); // exactly the gap
    assertThat(rule.joins(open, T0 + 15 * MIN + 1)).isFalse();
    assertThat(rule.joins(null, T0)).isFalse(); // nothing open

    FeedEntry nearlyAnHour = entry(T0, T0 + 55 * MIN);
    assertThat(rule.joins(nearlyAnHour, T0 + 60 * MIN)).isTrue(); // exactly the max span
    assertThat(rule.joins(nearlyAnHour, T0 + 60 * MIN + 1))
        .isFalse(); // within the gap, not the span
  }

  @Test
  void aBurstMakesOneEntryAndAGapSplitsIt() {
    List<WaitingEvent> events =
        List.of(
            waiting("e1", T0),
            waiting("e2", T0 + 2_000),
            waiting("e3", T0 + 4_000),
            waiting("e4", T0 + 4_000 + 10 * MIN + 1));

    Map<String, FeedEntry> made = rule.applyInOrder(KEY, null, events);

    String first = FeedEntry.entryId(KEY, T0, "e1");
    String second = FeedEntry.entryId(KEY, T0 + 4_000 + 10 * MIN + 1, "e4");
    assertThat(made).containsOnlyKeys(first, second);
    assertThat(made.get(first).eventCount).isEqualTo(3);
    assertThat(made.get(first).lastAt).isEqualTo(T0 + 4_000);
    assertThat(made.get(first).recentDetails)
        .extracting(d -> d.eventId)
        .containsExactly("e3", "e2", "e1"); // newest first, at most 3
    assertThat(made.get(second).eventCount).isEqualTo(1);
  }

  @Test
  void eventsAppliedAfterTheOpenEntryChangeOnlyACopyOfIt() {
    FeedEntry open = entry(T0, T0 + MIN);
    open.eventCount = 2;

    Map<String, FeedEntry> made =
        rule.applyInOrder(KEY, open, List.of(waiting("e3", T0 + 2 * MIN)));

    assertThat(made.get(open.entryId).eventCount).isEqualTo(3);
    assertThat(made.get(open.entryId).lastAt).isEqualTo(T0 + 2 * MIN);
    assertThat(open.eventCount).isEqualTo(2);
    assertThat(open.lastAt).isEqualTo(T0 + MIN);
  }

  @Test
  void entryIdsDependOnTheKeyAndTheOpeningEventNotOnArrivalOrder() {
    List<WaitingEvent> sorted = new ArrayList<>();
    long t = T0;
    Random random = new Random(51);
    for (int i = 0; i < 40; i++) {
      t += random.nextInt(3) == 0 ? 11 * MIN : random.nextInt(5 * (int) MIN);
      sorted.add(waiting("e" + i, t));
    }
    sorted.add(waiting("e-tie", sorted.get(10).at())); // a tie, ordered by event id
    List<WaitingEvent> shuffled = new ArrayList<>(sorted);
    Collections.shuffle(shuffled, random);
    shuffled.sort(CollationRule.ORDER);

    Map<String, FeedEntry> fromShuffled = rule.applyInOrder(KEY, null, shuffled);
    sorted.sort(CollationRule.ORDER);
    Map<String, FeedEntry> fromSorted = rule.applyInOrder(KEY, null, sorted);

    assertThat(fromShuffled.keySet()).containsExactlyElementsOf(fromSorted.keySet());
    assertThat(fromSorted.keySet().iterator().next())
        .isEqualTo(FeedEntry.entryId(KEY, sorted.get(0).at(), sorted.get(0).event.eventId()));
    assertThat(FeedEntry.entryId(KEY, T0, "e1"))
        .isEqualTo(FeedEntry.entryId(KEY, T0, "e1"))
        .isNotEqualTo(FeedEntry.entryId(KEY, T0 + 1, "e1"))
        .isNotEqualTo(FeedEntry.entryId(KEY, T0, "e2"))
        .isNotEqualTo(
            FeedEntry.entryId(
                new CollationKey("acme", "ana", "repository", "acme/weir", "starred"), T0, "e1"));
  }

  @Test
  void aLateEventMergesIntoTheEarliestEntryItFitsOrNone() {
    FeedEntry morning = entry(T0, T0 + 20 * MIN);
    FeedEntry later = entry(T0 + 35 * MIN, T0 + 40 * MIN);
    List<FeedEntry> entries = List.of(later, morning);

    assertThat(rule.lateFit(entries, T0 - 5 * MIN)).isSameAs(morning); // before it, in the gap
    assertThat(rule.lateFit(entries, T0 + 28 * MIN)).isSameAs(morning); // fits both: the earliest
    assertThat(rule.lateFit(entries, T0 + 50 * MIN)).isSameAs(later);
    assertThat(rule.lateFit(entries, T0 - 11 * MIN)).isNull(); // beyond the gap
    FeedEntry hour = entry(T0, T0 + 55 * MIN);
    assertThat(rule.lateFit(List.of(hour), T0 - 6 * MIN)).isNull(); // the span would pass 1 h
  }

  @Test
  void anEntrysTimerForgetsItsIdsADayAfterItsLastEventThenArchivesIt() {
    FeedEntry entry = entry(T0, T0 + MIN);
    assertThat(rule.nextTimer(entry, T0)).isEqualTo(T0 + MIN + DAY);
    assertThat(rule.nextTimer(entry, T0 + MIN + DAY)).isEqualTo(T0 + MIN + 30 * DAY);
    assertThat(rule.archiveAt(entry)).isEqualTo(T0 + MIN + 30 * DAY);
    assertThat(rule.remembersIds(entry, T0 + MIN + DAY - 1)).isTrue();
    assertThat(rule.remembersIds(entry, T0 + MIN + DAY)).isFalse();
  }

  @Test
  void anIdIsNeededWhileAnEntrySpansItsTimeOrItMayStillWait() {
    List<FeedEntry> remembering = List.of(entry(T0, T0 + 10 * MIN));
    long frontier = T0 + 30 * MIN;
    assertThat(CollationRule.idNeeded(T0 + 5 * MIN, frontier, remembering)).isTrue();
    assertThat(CollationRule.idNeeded(T0 + 20 * MIN, frontier, remembering)).isFalse();
    assertThat(CollationRule.idNeeded(frontier, frontier, List.of())).isTrue(); // may wait
    assertThat(CollationRule.idNeeded(T0 + 5 * MIN, frontier, List.of())).isFalse();
  }

  private static FeedEntry entry(long firstAt, long lastAt) {
    FeedEntry entry = FeedEntry.open(KEY, firstAt, "e@" + firstAt);
    entry.lastAt = lastAt;
    return entry;
  }

  private static WaitingEvent waiting(String id, long at) {
    return new WaitingEvent(
        new ActivityEvent(
            id,
            KEY.workspaceId(),
            KEY.actorId(),
            KEY.elementType(),
            KEY.elementId(),
            KEY.action(),
            Instant.ofEpochMilli(at),
            Map.of("n", id)),
        0);
  }
}
