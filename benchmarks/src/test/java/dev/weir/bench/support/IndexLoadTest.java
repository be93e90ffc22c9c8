package dev.weir.bench.support;

import static dev.weir.bench.support.IndexLoads.PASSES;
import static dev.weir.bench.support.IndexLoads.pass;
import static dev.weir.bench.support.IndexLoads.shortAfterWarmUp;
import static dev.weir.bench.support.IndexLoads.steadyAt;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The raw bulk's passes: the median pass is kept whole, after warm-up where every pass has one. */
class IndexLoadTest {

  @Test
  void theMedianPassIsKeptWholeWithEveryPasssRate() {
    IndexLoad median = IndexLoad.median(PASSES);

    assertThat(median.name()).isEqualTo("third");
    assertThat(median.documentsPerSecond()).isEqualTo(812.0);
    assertThat(median.cpu()).isEqualTo(Map.of("Elasticsearch", 812.0));
    assertThat(median.passRates()).containsExactly(997.0, 644.0, 812.0);
    assertThat(median.passesSummary())
        .isEqualTo("median of 3 passes after warm-up, whole loads 644–997/s");
  }

  @Test
  void theMedianIsTakenAfterWarmUpWhereEveryPassMeasuredIt() {
    // Over the whole load C is the median; after warm-up (the judged stretch) B is.
    List<IndexLoad> passes =
        List.of(
            steadyAt(pass("A", 997), 700),
            steadyAt(pass("B", 644), 900),
            steadyAt(pass("C", 812), 1000));
    assertThat(IndexLoad.median(passes).name()).isEqualTo("B");

    // One pass too short after warm-up to measure it: the whole loads decide.
    List<IndexLoad> oneShort =
        List.of(passes.get(0), passes.get(1), shortAfterWarmUp(passes.get(2)));
    assertThat(IndexLoad.median(oneShort).name()).isEqualTo("C");
    assertThat(IndexLoad.median(oneShort).passesSummary())
        .isEqualTo("median of 3 passes, range 644–997/s");
  }

  @Test
  void aStretchCountsTheDocumentsItsOperationsStandFor() {
    // 3,000 of 15,000 applied at warm-up; each document applied once: 12,000 in the stretch.
    assertThat(IndexLoad.steadyDocuments(15_000, 3_000, 15_000)).isEqualTo(12_000);
    // 16,500 operations for 15,000 documents (some revised): the stretch's 12,000 operations
    // stand for 12,000 × 15,000 / 16,500 documents, not 12,000.
    assertThat(IndexLoad.steadyDocuments(15_000, 3_000, 16_500)).isEqualTo(10_909);
  }
}
