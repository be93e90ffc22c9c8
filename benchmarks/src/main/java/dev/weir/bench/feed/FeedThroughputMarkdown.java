package dev.weir.bench.feed;

import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.SteadyState;
import dev.weir.bench.support.SteadyStateTable;
import dev.weir.feed.FeedOptions;
import java.util.List;
import java.util.Map;

/** activity-feed's steady-state results ({@link FeedThroughputBenchmark}) as Markdown. */
public final class FeedThroughputMarkdown {

  private FeedThroughputMarkdown() {}

  /**
   * What the keyed-state floor says of the gap to the limit: how much of weir's CPU per event the
   * floor's keyed state alone takes, and the floor's own share of the limit.
   */
  public static String floorSentence(FeedThroughputBenchmark.Report r) {
    return String.format(
        "The keyed-state floor (the input keyed as the job keys it, a seen-id lookup and write and"
            + " one value read and written per event in RocksDB, nothing else) ran at %.2f of the"
            + " decode-and-discard limit, with %.0f µs of CPU per event against the limit's %.0f"
            + " and weir's %.0f: keyed state in RocksDB alone takes %.0f µs per event, and weir's"
            + " collation (events waiting for the watermark, entries, the store) %.0f µs more.",
        r.floor().eventsPerSecond() / r.limit().eventsPerSecond(),
        r.floor().cpuMicrosPerEvent(),
        r.limit().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent(),
        r.floor().cpuMicrosPerEvent() - r.limit().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent() - r.floor().cpuMicrosPerEvent());
  }

  /**
   * What one thread allows: at parallelism 1 the collation runs on one thread, whose CPU per event
   * bounds the job's rate however idle the other cores are; and what the targets ask of it.
   */
  public static String threadSentence(FeedThroughputBenchmark.Report r) {
    double micros = r.weir().busiestThreadMicrosPerEvent();
    return String.format(
        "At parallelism 1 the collation runs on one thread: weir's busiest thread ('%s') used %.0f"
            + " µs of CPU per event; it was on a core %.0f %% of the window and runnable but waiting"
            + " for one (the cores busy with other threads and processes) %.0f %%. At that cost one"
            + " thread runs at most %,.0f events/s (%.2f of the limit, %.2f× the naive loop); the"
            + " targets need it at %.0f µs per event (0.5 of the limit; the floor's own busiest"
            + " thread used %.0f) and %.0f µs (2× the naive loop).",
        r.weir().busiestThread(),
        micros,
        100 * r.weir().busiestThreadBusy(),
        100 * r.weir().busiestThreadWaitingForCore(),
        1e6 / micros,
        1e6 / micros / r.limit().eventsPerSecond(),
        1e6 / micros / r.naive().eventsPerSecond(),
        1e6 / (0.5 * r.limit().eventsPerSecond()),
        r.floor().busiestThreadMicrosPerEvent(),
        1e6 / (2 * r.naive().eventsPerSecond()));
  }

  /** Timers in RocksDB (the default) against heap timers, at this input's live entries. */
  private static String timersSentence(FeedThroughputBenchmark.Report r) {
    return String.format(
        "Timers: with its timers on the heap (`state.backend.rocksdb.timer-service.factory: HEAP`)"
            + " weir read %,.0f events/s, %.2f× its rate with them in RocksDB (the default), at"
            + " %.0f against %.0f µs of CPU per event, with %,d entries live at the end (one timer"
            + " each). Heap timers hold heap per live entry and are written whole at every"
            + " checkpoint (docs/state.md).",
        r.weirHeapTimers().eventsPerSecond(),
        r.weirHeapTimers().eventsPerSecond() / r.weir().eventsPerSecond(),
        r.weirHeapTimers().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent(),
        r.events() / r.burst());
  }

  /** The default number of keys held between checkpoints against a tenth of it. */
  static String heldKeysSentence(FeedThroughputBenchmark.Report r) {
    return String.format(
        "Keys held: with `feed.held-keys` at %,d instead of its default %,d weir read %,.0f"
            + " events/s, %.2f× its rate, at %.0f against %.0f µs of CPU per event: a key"
            + " written back to RocksDB before its release and its coalesced write reads and"
            + " writes its bookkeeping again for each.",
        FeedThroughputBenchmark.FEW_KEYS_HELD,
        FeedOptions.HELD_KEYS.defaultValue(),
        r.weirFewKeysHeld().eventsPerSecond(),
        r.weirFewKeysHeld().eventsPerSecond() / r.weir().eventsPerSecond(),
        r.weirFewKeysHeld().cpuMicrosPerEvent(),
        r.weir().cpuMicrosPerEvent());
  }

  /** The results as Markdown, with the command that made them. */
  public static String of(FeedThroughputBenchmark.Report r, String command) {
    StringBuilder md = BenchReport.header("activity-feed at steady state, from Kafka", command);
    md.append(
        String.format(
            "Input: %,d activity events (JSON, %d partitions, bursts of %d: %.0f %% collate),"
                + " written to a fresh topic before any clock started. Each side then read the whole"
                + " topic from its beginning, one after the other, at parallelism 1, on this"
                + " machine's cores shared with Kafka and PostgreSQL. Rates are over each side's"
                + " steady window, from %.0f %% to %.0f %% of the input consumed (start-up, the first"
                + " checkpoints and the tail left out), from the source operator's own record"
                + " counter; a first pass of the decode-and-discard job, and one of weir's job"
                + " into a database of its own, warmed the JIT. The Flink"
                + " jobs ran in this JVM's MiniCluster with RocksDB state (incremental checkpoints"
                + " every 10 s, the default interval), exactly-once.%n%n",
            r.events(),
            r.partitions(),
            r.burst(),
            100.0 * (r.burst() - 1) / r.burst(),
            100 * SteadyState.WINDOW_FROM,
            100 * SteadyState.WINDOW_TO));
    md.append(
        SteadyStateTable.of(
            List.of(
                r.limit(), r.floor(), r.weir(), r.weirHeapTimers(), r.weirFewKeysHeld(), r.naive()),
            Map.of("vs the limit", r.limit())));
    double ofLimit = r.weir().eventsPerSecond() / r.limit().eventsPerSecond();
    double ofNaive = r.weir().eventsPerSecond() / r.naive().eventsPerSecond();
    md.append(
        String.format(
            "%nTargets (design.md):%n- weir / decode-and-discard limit: **%s** (target ≥ 0.5: %s)%n"
                + "- weir / naive JDBC loop: **%s** (target ≥ 2×: %s)%n",
            BenchReport.shown(ofLimit, 0.5, ""),
            ofLimit >= 0.5 ? "met" : "NOT met",
            BenchReport.shown(ofNaive, 2, "×"),
            ofNaive >= 2 ? "met" : "NOT met"));
    md.append(
        String.format(
            "%n%s %s%n%n%s %s%n",
            floorSentence(r), threadSentence(r), timersSentence(r), heldKeysSentence(r)));
    if (r.latency() != null) {
      md.append(
          String.format(
              "%nEnd-to-end latency, after weir's job had read the whole pre-loaded topic: a live"
                  + " input of %,d events/s for %d s, each the first of a new entry, sent while"
                  + " `feed_entry` was read every 100 ms; from an event's send time until a read"
                  + " finds its entry (committed): **p50 %,d ms, p99 %,d ms** over %,d events. The"
                  + " job holds a change up to `feed.max-staleness` (2 s by default: half coalescing,"
                  + " half the store's batch) before its row write.%n",
              FeedThroughputBenchmark.LATENCY_RATE,
              r.latencySeconds(),
              r.latency().visibleP50(),
              r.latency().visibleP99(),
              r.latency().events()));
    }
    md.append(
        "\nThe benchmark JVM is the job's (the MiniCluster) for the Flink sides and the naive loop's"
            + " for the naive side; its JIT and GC parts are already counted in it.\n");
    return md.toString();
  }
}
