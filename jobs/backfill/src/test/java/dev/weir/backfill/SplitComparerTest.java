package dev.weir.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SplitComparerTest {

  private static final byte[] A = HexFormat.of().parseHex("0a0a");
  private static final byte[] B = HexFormat.of().parseHex("0b0b");

  @Test
  void sendsOnlyWhatTheTargetDoesNotHoldWithTheSameHash() {
    Map<Long, byte[]> copy = new LinkedHashMap<>();
    copy.put(1L, A); // held with the same hash: skipped
    copy.put(2L, B); // held with another hash: changed since
    copy.put(3L, A); // not in the target
    copy.put(4L, null); // no hash to compare: sent
    Map<Long, TargetIndex.Held> held =
        Map.of(
            1L, new TargetIndex.Held("0a0a", 5),
            2L, new TargetIndex.Held("0a0a", 5),
            4L, new TargetIndex.Held("0a0a", 5),
            9L, new TargetIndex.Held("0a0a", 5)); // gone from the copy: the delete pass's business

    assertThat(SplitComparer.differing(copy, held)).containsExactly(2L, 3L, 4L);
  }

  @Test
  void anEmptyTargetGetsEverything() {
    Map<Long, byte[]> copy = new LinkedHashMap<>();
    copy.put(7L, A);
    copy.put(8L, B);

    assertThat(SplitComparer.differing(copy, Map.of())).containsExactly(7L, 8L);
  }
}
