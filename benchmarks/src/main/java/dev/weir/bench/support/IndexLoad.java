package dev.weir.bench.support;

import dev.weir.connector.elasticsearch.SearchCluster;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A timed load, and the CPU seconds each process of the machine used meanwhile.
 *
 * @param steadyCpu the CPU seconds each process used after the warm-up, from the moment the first
 *     fifth was counted (within one poll) until the last
 * @param passRates where this is the median of several passes of the same load ({@link #median}):
 *     every pass's documents/s over its whole load, in the order run; else empty
 */
public record IndexLoad(
    String name,
    long documents,
    double seconds,
    long steadyDocuments,
    double steadySeconds,
    Map<String, Double> cpu,
    Map<String, Double> steadyCpu,
    IndexWork elasticsearch,
    Settled settled,
    List<Double> passRates) {

  /** The shortest stretch after warm-up a rate is taken over. */
  public static final double MIN_STEADY_SECONDS = 5;

  public double documentsPerSecond() {
    return documents / seconds;
  }

  /**
   * The pass of {@code passes} with the median documents/s after warm-up where every pass measured
   * it, else over the whole load (the pass whole: its timelines, CPU and index stats belong
   * together), carrying every pass's documents/s over its whole load for the range.
   */
  public static IndexLoad median(List<IndexLoad> passes) {
    IndexLoad m =
        Median.of(
            passes,
            medianBySteadyRate(passes)
                ? IndexLoad::steadyDocumentsPerSecond
                : IndexLoad::documentsPerSecond);
    return new IndexLoad(
        m.name,
        m.documents,
        m.seconds,
        m.steadyDocuments,
        m.steadySeconds,
        m.cpu,
        m.steadyCpu,
        m.elasticsearch,
        m.settled,
        passes.stream().map(IndexLoad::documentsPerSecond).toList());
  }

  private static boolean medianBySteadyRate(List<IndexLoad> passes) {
    return passes.stream().allMatch(IndexLoad::steadyMeasured);
  }

  /**
   * How the rate was measured, for a report: "median of 3 passes after warm-up, whole loads
   * low–high/s", or where chosen by the whole loads "median of 3 passes, range low–high/s".
   */
  public String passesSummary() {
    return steadyMeasured()
        ? String.format(
            Locale.ROOT,
            "median of %d passes after warm-up, whole loads %s",
            passRates.size(),
            range())
        : String.format(Locale.ROOT, "median of %d passes, range %s", passRates.size(), range());
  }

  /** The lowest and the highest documents/s of the passes: "low–high/s". */
  public String range() {
    return BenchReport.span(passRates, "%,.0f") + "/s";
  }

  /** After the warm-up (the first fifth of the documents applied), as identity's benchmark. */
  public double steadyDocumentsPerSecond() {
    return steadyDocuments / steadySeconds;
  }

  /**
   * Whether the stretch after warm-up is long enough to measure: a bulk takes Elasticsearch up to a
   * second, so over a shorter stretch the count mostly measures where bulks ended.
   */
  public boolean steadyMeasured() {
    return steadySeconds >= MIN_STEADY_SECONDS;
  }

  /**
   * A load followed by {@code progress} from {@code startNanos} until a search counted {@code
   * documents}, with what Elasticsearch had done for {@code index} by then. Its stretch after
   * warm-up runs from the moment Elasticsearch had applied the first fifth of the documents until
   * it had applied the last ({@link IndexProgress}: not where refreshes fell). Called while the
   * load runs: it meters the CPU of that stretch as it passes.
   */
  public static IndexLoad timed(
      String name,
      long documents,
      long startNanos,
      IndexProgress progress,
      CpuUse cpu,
      SearchCluster es,
      String index)
      throws Exception {
    CountTimeline.Sample warm = progress.applied.await(documents / 5, Duration.ofMinutes(3));
    CpuUse afterWarmUp = cpu.restart();
    CountTimeline.Sample applied = progress.applied.await(documents, Duration.ofMinutes(3));
    Map<String, Double> steadyCpuSeconds = afterWarmUp.seconds();
    CountTimeline.Sample done = progress.searchable.await(documents, Duration.ofMinutes(3));
    Map<String, Double> cpuSeconds = cpu.seconds();
    IndexWork atEnd = IndexWork.read(es, index);
    return new IndexLoad(
        name,
        documents,
        (done.nanoTime() - startNanos) / 1e9,
        steadyDocuments(documents, warm.count(), progress.applied.latest()),
        (applied.nanoTime() - warm.nanoTime()) / 1e9,
        cpuSeconds,
        steadyCpuSeconds,
        atEnd,
        null,
        List.of());
  }

  /**
   * The documents of a stretch after warm-up that began at {@code warmOperations} applied and ended
   * at {@code documents} applied, of a load that applied {@code operations} in all. A side that
   * indexed some documents more than once (a document revised while the load ran) reached as many
   * operations as documents before its last document: its stretch holds its operations' share of
   * the documents, not more.
   */
  public static long steadyDocuments(long documents, long warmOperations, long operations) {
    double documentsPerOperation = (double) documents / Math.max(documents, operations);
    return Math.round((documents - warmOperations) * documentsPerOperation);
  }

  /**
   * This load with what Elasticsearch did until the merges it left were done: a load that ends
   * sooner leaves more of its segments to merge after its window. Leaves Elasticsearch idle for the
   * next load.
   */
  public IndexLoad settle(SearchCluster es, String index, CpuUse meter) throws Exception {
    Thread.sleep(1000); // the last refresh (once a second) may still have a merge to schedule
    BenchEnvironment.awaitMergesDone(es);
    Settled s =
        new Settled(
            IndexWork.read(es, index),
            meter.seconds().getOrDefault(CpuUse.ELASTICSEARCH, Double.NaN));
    return new IndexLoad(
        name,
        documents,
        seconds,
        steadyDocuments,
        steadySeconds,
        cpu,
        steadyCpu,
        elasticsearch,
        s,
        passRates);
  }

  /**
   * What Elasticsearch had done for a load once no merge ran any more (awaited after the load), and
   * the CPU seconds it used from the load's start until then.
   */
  public record Settled(IndexWork work, double elasticsearchCpuSeconds) {}
}
