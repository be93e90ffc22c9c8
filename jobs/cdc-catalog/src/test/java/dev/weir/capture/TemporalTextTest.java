package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.connector.postgresql.PgOid;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TemporalTextTest {

  @Test
  void aTimetzKeepsItsOffsetAndMicroseconds() {
    assertThat(TemporalText.value(PgOid.TIMETZ, "13:14:15+02"))
        .isEqualTo(OffsetTime.of(LocalTime.of(13, 14, 15), ZoneOffset.ofHours(2)));
    assertThat(TemporalText.value(PgOid.TIMETZ, "00:00:00.5-05:30"))
        .isEqualTo(OffsetTime.of(LocalTime.of(0, 0, 0, 500_000_000), ZoneOffset.of("-05:30")));
    assertThat(TemporalText.value(PgOid.TIMETZ, "23:59:59.999999+00"))
        .isEqualTo(OffsetTime.of(LocalTime.of(23, 59, 59, 999_999_000), ZoneOffset.UTC));
    assertThat(TemporalText.value(PgOid.TIMETZ, "10:00:00+05:30:15"))
        .isEqualTo(OffsetTime.of(LocalTime.of(10, 0), ZoneOffset.ofHoursMinutesSeconds(5, 30, 15)));
  }

  /** Debezium's converter reads a time's text itself: 24:00:00 and microseconds included. */
  @Test
  void aTimeIsItsText() {
    assertThat(TemporalText.value(PgOid.TIME, "24:00:00")).isEqualTo("24:00:00");
  }
}
