package dev.weir.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Splits are keyset ranges of ids as strings: every id in exactly one, whatever the key's type. */
class SplitTest {

  @Test
  void anEmptyCopyIsOneSplitWithoutBounds() {
    assertThat(Split.between(List.of())).containsExactly(new Split(null, null));
  }

  @Test
  void theFirstSplitHasNoLowerBoundAndTheLastNoUpperOne() {
    assertThat(Split.between(List.of("a", "m", "t")))
        .containsExactly(new Split(null, "m"), new Split("m", "t"), new Split("t", null));
  }

  @Test
  void listedIdsAreCutIntoSplitsOfAtMostTheSizeInTheirOrder() {
    List<Split> splits = Split.of(List.of("a", "b", "c", "d", "e"), 2);

    assertThat(splits).allMatch(Split::listed);
    assertThat(splits)
        .extracting(Split::ids)
        .containsExactly(List.of("a", "b"), List.of("c", "d"), List.of("e"));
    assertThat(Split.of(List.of(), 2)).isEmpty();
    assertThat(Split.between(List.of("a"))).noneMatch(Split::listed);
  }

  @Test
  void everyIdOfAnyKindIsInExactlyOneSplitAndIdsAddedOutsideTheStartsToo() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      ids.add(UUID.nameUUIDFromBytes(new byte[] {(byte) i, (byte) (i >> 8)}).toString());
      ids.add("978-" + (1_000_000 + i * 7919 % 100_000));
      ids.add("[\"eu\"," + i + "]");
      ids.add("[\"us\"," + i + "]");
      ids.add(Integer.toString(i));
      ids.add("Ünïcode-" + i);
    }
    // The copy sorts doc_id bytewise (COLLATE "C"): for UTF-8 that is code point order.
    TreeSet<String> sorted = new TreeSet<>(SplitTest::bytewise);
    sorted.addAll(ids);
    List<String> inOrder = new ArrayList<>(sorted);
    List<String> starts = new ArrayList<>();
    for (int i = 0; i < inOrder.size(); i += 97) {
      starts.add(inOrder.get(i));
    }
    List<Split> splits = Split.between(starts);
    assertThat(splits).hasSize(starts.size());

    List<String> all = new ArrayList<>(ids);
    Collections.addAll(all, "", "!", "~~~~", "\uffff"); // added below the first, above the last
    for (String id : all) {
      assertThat(splits.stream().filter(s -> contains(s, id)).count()).as(id).isEqualTo(1);
    }
  }

  private static boolean contains(Split s, String id) {
    return (s.from() == null || bytewise(s.from(), id) <= 0)
        && (s.until() == null || bytewise(id, s.until()) < 0);
  }

  private static int bytewise(String a, String b) {
    return Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
