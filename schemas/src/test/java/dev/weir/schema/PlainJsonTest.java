package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The scan for an escaped NUL, which PostgreSQL text cannot hold. */
class PlainJsonTest {

  private static final String NUL = "\\u0000";

  @Test
  void findsAnEscapedNulAtEveryOffsetAndAlignment() {
    for (int before = 0; before < 20; before++) {
      for (int after = 0; after < 12; after++) {
        byte[] text =
            ("x".repeat(before) + NUL + "y".repeat(after)).getBytes(StandardCharsets.UTF_8);
        assertThat(PlainJson.escapedNul(text, 0, text.length)).as("%d, %d", before, after).isTrue();
        // Cut off anywhere in it, it is not there.
        for (int cut = before; cut < before + NUL.length(); cut++) {
          assertThat(PlainJson.escapedNul(text, 0, cut)).as("cut at %d", cut).isFalse();
        }
        // Outside the range scanned, it is not there either.
        assertThat(PlainJson.escapedNul(text, before + 1, text.length)).isFalse();
      }
    }
  }

  @Test
  void otherEscapesAndBackslashesAtEveryShiftAreNotANul() {
    String text = "{\"a\":\"\\\\\\\\\\u00000\\u0001\\u1000\\n\\\"\\u000\",\"\\\\u\":\"\\u00\"}";
    for (int shift = 0; shift < 8; shift++) {
      byte[] b = (" ".repeat(shift) + text.replace("\\u00000", "\\u0010")).getBytes();
      assertThat(PlainJson.escapedNul(b, 0, b.length)).as("shift %d", shift).isFalse();
      byte[] withNul = (" ".repeat(shift) + text).getBytes();
      assertThat(PlainJson.escapedNul(withNul, 0, withNul.length)).as("shift %d", shift).isTrue();
    }
  }

  @Test
  void bytesAbove0x7fDoNotLookLikeABackslash() {
    byte[] b = ("é".repeat(40) + "\\u0000").getBytes(StandardCharsets.UTF_8);
    assertThat(PlainJson.escapedNul(b, 0, b.length)).isTrue();
    assertThat(PlainJson.escapedNul(b, 0, b.length - 1)).isFalse();
  }
}
