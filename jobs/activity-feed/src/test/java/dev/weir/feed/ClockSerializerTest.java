package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.types.KryoFree;
import dev.weir.common.types.StateThroughSavepoint;
import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.common.types.StateThroughSavepoint.Kind;
import dev.weir.feed.Clock.Dirty;
import dev.weir.feed.Clock.SeenId;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.testutils.DeeplyEqualsChecker;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Flink's contract tests for a serializer, and clocks of an earlier savepoint migrated. */
class ClockSerializerTest extends SerializerTestBase<Clock> {

  @Override
  protected TypeSerializer<Clock> createSerializer() {
    return ClockSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<Clock> getTypeClass() {
    return Clock.class;
  }

  @Override
  protected Clock[] getTestData() {
    return new Clock[] {new Clock(), busy(), manyIds()};
  }

  ClockSerializerTest() {
    super(
        new DeeplyEqualsChecker()
            .withCustomCheck(
                (a, b) -> a instanceof Clock && b instanceof Clock,
                (a, b, checker) -> {
                  assertThat(b).usingRecursiveComparison().isEqualTo(a);
                  return true;
                }));
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void clocksThePojoSerializerWroteAreMigrated(Backend backend) throws Exception {
    List<Clock> restored =
        StateThroughSavepoint.restore(
            List.of(busy()),
            KryoFree.pojoOf(Clock.class),
            ClockSerializer.TYPE,
            Kind.VALUE,
            backend);

    assertThat(restored).singleElement().usingRecursiveComparison().isEqualTo(busy());
  }

  /** A key with an open entry, waiting events, remembered ids and a dirty entry. */
  private static Clock busy() {
    Clock clock = new Clock();
    clock.openEntryId = "e-ana-push-⛺";
    clock.frontier = 1_700_000_000_000L;
    clock.flushAt = 1_000;
    clock.releaseAt = 1_700_000_060_000L;
    clock.patienceAt = Clock.NONE;
    clock.waiting = 2;
    clock.latestWaitingAt = 1_700_000_061_000L;
    clock.entryTimerAt = Long.MAX_VALUE;
    clock.shown = true;
    clock.seenIds = new ArrayList<>(List.of(new SeenId("e1", 1), new SeenId("𝄞", 2)));
    Dirty dirty = new Dirty();
    dirty.entryId = "e-ana-push-⛺";
    dirty.changed = 5;
    dirty.created = true;
    clock.dirty = new ArrayList<>(List.of(dirty));
    return clock;
  }

  /** A key that remembers more ids than its clock holds: they are in seen. */
  private static Clock manyIds() {
    Clock clock = new Clock();
    clock.seenIds = null;
    return clock;
  }
}
