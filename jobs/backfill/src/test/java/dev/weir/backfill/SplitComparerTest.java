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
    Map<String, byte[]> copy = new LinkedHashMap<>();
    copy.put("1", A); // held with the same hash: skipped
    copy.put("2", B); // held with another hash: changed since
    copy.put("3", A); // not in the target
    copy.put("4", null); // no hash to compare: sent
    Map<String, TargetIndex.Held> held =
        Map.of(
            "1", new TargetIndex.Held("0a0a", 5, null),
            "2", new TargetIndex.Held("0a0a", 5, null),
            "4", new TargetIndex.Held("0a0a", 5, null),
            "9",
                new TargetIndex.Held(
                    "0a0a", 5, null)); // gone from the copy: the delete pass's business

    assertThat(SplitComparer.differing(copy, held)).containsExactly("2", "3", "4");
  }

  @Test
  void anEmptyTargetGetsEverything() {
    Map<String, byte[]> copy = new LinkedHashMap<>();
    copy.put("7", A);
    copy.put("8", B);

    assertThat(SplitComparer.differing(copy, Map.of())).containsExactly("7", "8");
  }

  @Test
  void idsOfAnyKindCompareAsTheStringsTheyAre() {
    Map<String, byte[]> copy = new LinkedHashMap<>();
    copy.put("978-0451524935", A); // text
    copy.put("6f1c2a3e-0000-4000-8000-000000000001", A); // uuid
    copy.put("[\"eu\",42]", A); // composite
    copy.put("[\"eu\",43]", B);
    copy.put("42", A); // an integer key: "42" is not "042"
    Map<String, TargetIndex.Held> held =
        Map.of(
            "978-0451524935", new TargetIndex.Held("0a0a", 1, null),
            "6f1c2a3e-0000-4000-8000-000000000001", new TargetIndex.Held("0a0a", 1, null),
            "[\"eu\",42]", new TargetIndex.Held("0a0a", 1, null),
            "[\"eu\",43]", new TargetIndex.Held("0a0a", 1, null),
            "042", new TargetIndex.Held("0a0a", 1, null));

    assertThat(SplitComparer.differing(copy, held)).containsExactly("[\"eu\",43]", "42");
  }
}
