package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class IsoInstantTest {

  @Test
  void aTimestampReadByHandIsTheFormattersInstant() {
    for (String s :
        List.of(
            "2026-11-21T10:00:00Z",
            "2026-11-21T10:00:00.1Z",
            "2026-11-21T10:00:00.123456Z",
            "2026-11-21T10:00:00.123456789Z",
            "2024-02-29T23:59:59.5+05:30",
            "0001-01-01T00:00:00-08:00",
            "9999-12-31T23:59:59.999999+14:00")) {
      assertThat(IsoInstant.parse(s)).as(s).isEqualTo(OffsetDateTime.parse(s).toInstant());
    }
    // Other forms and invalid dates take the formatter's way, with its message.
    for (String s :
        List.of(
            "2026-11-21T10:00:00",
            "2026-11-21T10:00Z",
            "2026-11-21T10:00:00.Z",
            "2026-02-30T10:00:00Z",
            "2026-11-21T10:00:00+0100",
            "+10000-01-01T00:00:00Z",
            "2026-11-21T1a:00:00Z",
            "2026-11-21T10:00:00.00000000\u0660Z",
            "2026-11-21T10:00:00.\u0661Z")) {
      assertThat(IsoInstant.parse(s)).as(s).isNull();
    }
  }
}
