package dev.weir.bench.search;

import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.IndexLoad;
import dev.weir.bench.support.Median;
import dev.weir.bench.support.RawBulk;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * One end-to-end pass: weir's job, then the raw bulk of the documents it indexed (its median pass,
 * {@link RawBulk#timedPasses}).
 *
 * @param pairRatios where this is the median of several pairs ({@link #median}): every pair's
 *     ratio, in the order run; else empty
 * @param pairsAfterWarmUp whether those ratios are after warm-up (every pair measured it) rather
 *     than over the whole loads
 */
public record Pass(
    IndexLoad weir, IndexLoad raw, List<Double> pairRatios, boolean pairsAfterWarmUp) {
  public Pass(IndexLoad weir, IndexLoad raw) {
    this(weir, raw, List.of(), false);
  }

  /**
   * The pair of {@code pairs} with the median ratio, after warm-up where every pair measured it,
   * else over the whole load (the pair whole: both sides' CPU and index stats belong to it),
   * carrying every pair's ratio for the range.
   */
  public static Pass median(List<Pass> pairs) {
    boolean steady = pairs.stream().allMatch(p -> p.steadyRatio().isPresent());
    ToDoubleFunction<Pass> ratio = p -> steady ? p.steadyRatio().orElseThrow() : p.ratio();
    Pass m = Median.of(pairs, ratio);
    return new Pass(m.weir, m.raw, pairs.stream().mapToDouble(ratio).boxed().toList(), steady);
  }

  /**
   * How the pair was chosen, for a report: "the median of 5 pairs after warm-up, ratios low–high".
   */
  public String pairsSummary() {
    return String.format(
        Locale.ROOT,
        "the median of %d pairs%s, ratios %s",
        pairRatios.size(),
        steadyRatio().isPresent() ? " after warm-up" : "",
        BenchReport.span(pairRatios, "%.2f"));
  }

  public double ratio() {
    return weir.documentsPerSecond() / raw.documentsPerSecond();
  }

  /**
   * The same after each side's warm-up, where both were long enough to measure; for the median of
   * pairs, only where it was chosen by that (every pair measured it).
   */
  public Optional<Double> steadyRatio() {
    boolean chosenByWholeLoads = !pairRatios.isEmpty() && !pairsAfterWarmUp;
    if (chosenByWholeLoads || !weir.steadyMeasured() || !raw.steadyMeasured()) {
      return Optional.empty();
    }
    return Optional.of(weir.steadyDocumentsPerSecond() / raw.steadyDocumentsPerSecond());
  }
}
