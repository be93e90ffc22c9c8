package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Times written as {@link Instant#toString} writes them, without its formatter. */
class IsoInstantAppendTest {

  private static String iso(long epochMs) {
    StringBuilder out = new StringBuilder();
    IsoInstant.append(out, Instant.ofEpochMilli(epochMs));
    return out.toString();
  }

  @Test
  void writesATimeAsInstantDoes() {
    assertThat(iso(Instant.parse("2026-01-05T09:00:00Z").toEpochMilli()))
        .isEqualTo("2026-01-05T09:00:00Z");
    assertThat(iso(Instant.parse("2026-01-05T09:00:00.050Z").toEpochMilli()))
        .isEqualTo("2026-01-05T09:00:00.050Z");
    long[] edges = {
      0,
      1,
      999,
      1000,
      86_399_999,
      86_400_000,
      -1,
      -86_400_001,
      Instant.parse("0001-01-01T00:00:00Z").toEpochMilli(),
      Instant.parse("2024-02-29T23:59:59.999Z").toEpochMilli(),
      Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli(),
      Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli(),
    };
    for (long ms : edges) {
      assertThat(iso(ms)).as("%d", ms).isEqualTo(Instant.ofEpochMilli(ms).toString());
    }
  }

  @Test
  void agreesWithInstantOverTheYearsAJobStores() {
    SplittableRandom random = new SplittableRandom(27);
    long to = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();
    for (int i = 0; i < 200_000; i++) {
      long ms = random.nextLong(-to, to + 1);
      assertThat(iso(ms)).isEqualTo(Instant.ofEpochMilli(ms).toString());
    }
  }
}
