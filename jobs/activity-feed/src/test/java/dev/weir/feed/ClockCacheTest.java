package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.ActivityEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the clock cache counts, and when it is full. */
class ClockCacheTest {

  @Test
  void eventsAReleaseTakesAreNoLongerCounted() {
    ClockCache cache = new ClockCache(4);
    ClockCache.Held a = cache.read(key("a"), null);
    for (int i = 0; i < 3; i++) {
      cache.addWaiting(a, pending(i));
    }
    assertThat(cache.events()).isEqualTo(3);
    assertThat(cache.full()).isFalse();

    // A release applied two of them: one is left waiting.
    cache.replaceWaiting(a, new ArrayList<>(a.waiting.subList(2, 3)));
    assertThat(cache.events()).isEqualTo(1);

    // So the key takes three more before four events are held.
    for (int i = 3; i < 5; i++) {
      cache.addWaiting(a, pending(i));
    }
    assertThat(cache.full()).isFalse();
    cache.addWaiting(a, pending(5));
    assertThat(cache.events()).isEqualTo(4);
    assertThat(cache.full()).isTrue();
  }

  @Test
  void isFullAtItsCapacityOfKeys() throws Exception {
    ClockCache cache = new ClockCache(2);
    cache.read(key("a"), null);
    assertThat(cache.full()).isFalse();
    cache.read(key("b"), null);
    assertThat(cache.full()).isTrue();

    List<CollationKey> written = new ArrayList<>();
    cache.flush((key, held) -> written.add(key));
    assertThat(written).isEmpty(); // nothing changed in either
    assertThat(cache.size()).isZero();
    assertThat(cache.full()).isFalse();
  }

  private static CollationKey key(String element) {
    return new CollationKey("ws", "actor", "repository", element, "push");
  }

  private static WaitingEvent pending(int i) {
    return new WaitingEvent(
        new ActivityEvent(
            "e-" + i,
            "ws",
            "actor",
            "repository",
            "a",
            "push",
            Instant.parse("2026-01-05T09:00:00Z").plusSeconds(i),
            Map.of()),
        i);
  }
}
