package dev.weir.bench.feed;

import dev.weir.bench.support.PacedInput;
import dev.weir.bench.support.SteadySides;

/** A steady-state report of activity-feed made up for the tests. */
public final class FeedThroughputReports {

  private FeedThroughputReports() {}

  /**
   * activity-feed from Kafka: the limit, the floor, weir and two variants of it, the naive loop.
   */
  public static FeedThroughputBenchmark.Report report() {
    return new FeedThroughputBenchmark.Report(
        200_000,
        5,
        2,
        SteadySides.side("decode, validate, discard", 120_000, 1.0, 0.8),
        SteadySides.side("keyed-state floor", 120_000, 2.0, 1.0),
        SteadySides.side("weir activity-feed", 120_000, 4.0, 1.2),
        SteadySides.side("weir, heap timers", 120_000, 3.8, 1.1),
        SteadySides.side("weir, 10,000 keys held", 120_000, 6.0, 1.8),
        SteadySides.side("naive JDBC loop", 120_000, 3.0, 0.9),
        new PacedInput.Latency(5_000, 1_400, 2_600),
        10);
  }
}
