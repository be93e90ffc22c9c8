package dev.weir.bench.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sides' table: each side's window beside its rate, a short one called rough. */
class SteadyStateTableTest {

  @Test
  void showsEachWindowAndCallsAShortOneRough() {
    SteadyState.Side limit = side("decode and discard", 600_000, 1.0);
    SteadyState.Side weir = side("weir activity-feed", 600_000, 9.2);

    String md = SteadyStateTable.of(List.of(limit, weir), Map.of("vs the limit", limit));

    assertThat(md)
        .contains("| side | events/s | window (s) | vs the limit |")
        .contains("| decode and discard | 600,000 | 1.0 | 1.00 |")
        .contains("| weir activity-feed | 65,217 | 9.2 | 0.11 |")
        .contains("The window of decode and discard lasted under 5 s");
    assertThat(SteadyStateTable.of(List.of(weir), Map.of())).doesNotContain("lasted under");
  }

  private static SteadyState.Side side(String name, long events, double seconds) {
    return new SteadyState.Side(name, events, seconds, Map.of(CpuUse.THIS_JVM, 1.0), null);
  }
}
