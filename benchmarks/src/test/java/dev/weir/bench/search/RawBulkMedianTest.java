package dev.weir.bench.search;

import static dev.weir.bench.support.IndexLoads.PASSES;
import static dev.weir.bench.support.IndexLoads.load;
import static dev.weir.bench.support.IndexLoads.metered;
import static dev.weir.bench.support.IndexLoads.pass;
import static dev.weir.bench.support.IndexLoads.shortAfterWarmUp;
import static dev.weir.bench.support.IndexLoads.steadyAt;
import static dev.weir.bench.support.IndexLoads.within;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.IndexLoad;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The judged ratio: the median pair, or the raw bulk's median pass; and the report says which. */
class RawBulkMedianTest {

  @Test
  void theJudgedRatioIsTheMedianPairsWithEveryPairsRatio() {
    // The host slows down over the step, and each pair's two sides slow together: the pairs'
    // ratios are 0.93, 0.95, 0.90, 1.00 and 0.98, while weir's median pass (900/s) over the raw
    // bulk's (1,000/s) would read 0.90, the pairs' lowest.
    List<Pass> pairs =
        List.of(
            new Pass(steadyAt(pass("weir 1", 900), 1_000), steadyAt(pass("raw 1", 900), 1_080)),
            new Pass(steadyAt(pass("weir 2", 900), 950), steadyAt(pass("raw 2", 900), 1_000)),
            new Pass(steadyAt(pass("weir 3", 900), 900), steadyAt(pass("raw 3", 900), 1_000)),
            new Pass(steadyAt(pass("weir 4", 900), 850), steadyAt(pass("raw 4", 900), 850)),
            new Pass(steadyAt(pass("weir 5", 900), 800), steadyAt(pass("raw 5", 900), 820)));

    Pass median = Pass.median(pairs);

    assertThat(median.weir().name()).isEqualTo("weir 2");
    assertThat(median.raw().name()).isEqualTo("raw 2");
    assertThat(median.steadyRatio().orElseThrow()).isCloseTo(0.95, within());
    assertThat(median.pairRatios()).hasSize(5).element(3).isEqualTo(1.0); // in the order run
    assertThat(median.pairsSummary())
        .isEqualTo("the median of 5 pairs after warm-up, ratios 0.90–1.00");

    CopyWrites writes = new CopyWrites("weir", 1, 1, 1, 0, List.of());
    IndexLoad weir = pairs.get(0).weir();
    SearchIndexBenchmark.Result result =
        new SearchIndexBenchmark.Result(
            10_000, 6_000, pairs.get(0), weir, weir, median, writes, writes, 1.0);
    assertThat(result.judgedRatio()).isCloseTo(0.95, within());
    assertThat(result.judgedMedianOf()).isEqualTo("median of 5 pairs");
    assertThat(SearchIndexMarkdown.of(result, "bin/weir bench search"))
        .contains("| separate cores, the median pair | weir 2 | 10,000 |")
        .contains(
            "**Judged (Elasticsearch on a core of its own, after warm-up): 0.95** (target ≥ 0.9:"
                + " met). It is the median of 5 pairs after warm-up, ratios 0.90–1.00: each pair");
  }

  @Test
  void pairsAreComparedOverTheWholeLoadsWhereOneWasTooShortAfterWarmUp() {
    // The pair with the median whole-load ratio (0.90) measured after warm-up (1.00), another
    // pair did not: the judged ratio is the whole loads' 0.90, not that pair's 1.00.
    List<Pass> pairs =
        List.of(
            new Pass(pass("weir 1", 800), pass("raw 1", 1_000)),
            new Pass(steadyAt(pass("weir 2", 900), 1_000), steadyAt(pass("raw 2", 1_000), 1_000)),
            new Pass(pass("weir 3", 1_000), shortAfterWarmUp(pass("raw 3", 1_000))));

    Pass median = Pass.median(pairs);

    assertThat(median.weir().name()).isEqualTo("weir 2");
    assertThat(median.steadyRatio()).isEmpty();
    assertThat(median.pairsSummary()).isEqualTo("the median of 3 pairs, ratios 0.80–1.00");
    CopyWrites writes = new CopyWrites("weir", 1, 1, 1, 0, List.of());
    SearchIndexBenchmark.Result result =
        new SearchIndexBenchmark.Result(
            10_000, 6_000, pairs.get(0), median.weir(), median.raw(), median, writes, writes, 1.0);
    assertThat(result.judgedRatio()).isCloseTo(0.9, within());
    assertThat(result.judgedOn()).isEqualTo("Elasticsearch on a core of its own, whole load");
  }

  @Test
  void theRatiosAreTakenAgainstTheMedianPassNotTheFirst() {
    IndexLoad weir = load("weir", 10_000, 10_000 / 730.8, List.of());

    assertThat(new Pass(weir, IndexLoad.median(PASSES)).ratio()).isCloseTo(0.9, within());
  }

  @Test
  void searchIndexReportSaysTheRawBulkIsTheMedianOfItsPasses() {
    IndexLoad raw = IndexLoad.median(PASSES);
    IndexLoad weir = load("weir", 10_000, 10_000 / 730.8, List.of());
    CopyWrites writes = new CopyWrites("weir", 1, 1, 1, 0, List.of());
    String md =
        SearchIndexMarkdown.of(
            new SearchIndexBenchmark.Result(
                10_000, 6_000, new Pass(weir, raw), weir, raw, null, writes, writes, 1.0),
            "bin/weir bench search");

    assertThat(md)
        .contains("Each raw bulk is loaded 3 times")
        .contains(
            "| second | third: median of 3 passes after warm-up, whole loads 644–997/s | 10,000 |")
        .contains(
            "weir end to end / raw bulk (median of 3 passes after warm-up, whole loads"
                + " 644–997/s), second pass")
        .contains(
            "The raw bulk's side is its median of 3 passes after warm-up, whole loads"
                + " 644–997/s.");
  }

  @Test
  void theJudgedPassByCoreIsTakenAfterWarmUp() {
    // weir's side: Elasticsearch idle while the job read the snapshot, then 93 % busy.
    IndexLoad weir =
        metered(
            "weir",
            20.0,
            10.0,
            Map.of("Elasticsearch", 10.0, "benchmark JVM", 8.0),
            Map.of("Elasticsearch", 9.3, "benchmark JVM", 5.0));
    IndexLoad raw =
        metered(
            "raw",
            10.0,
            8.0,
            Map.of("Elasticsearch", 9.5, "benchmark JVM", 1.0),
            Map.of("Elasticsearch", 7.6, "benchmark JVM", 0.8));
    CopyWrites writes = new CopyWrites("weir", 1, 1, 1, 0, List.of());
    String md =
        SearchIndexMarkdown.of(
            new SearchIndexBenchmark.Result(
                10_000,
                6_000,
                new Pass(weir, raw),
                weir,
                raw,
                new Pass(weir, raw),
                writes,
                writes,
                1.0),
            "bin/weir bench search");

    assertThat(md)
        .contains("stretch after warm-up (the judged one)")
        .contains("| Elasticsearch's core busy | 93 % | 95 % |")
        .contains("| over the whole load: Elasticsearch's core busy | 50 % | 95 % |")
        .contains("Per 1,000 documents Elasticsearch used 1.16 CPU s on weir's side, 0.95");
  }
}
