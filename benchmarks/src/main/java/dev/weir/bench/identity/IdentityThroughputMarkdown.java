package dev.weir.bench.identity;

import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.SteadyState;
import dev.weir.bench.support.SteadyStateTable;
import dev.weir.common.config.WeirOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** identity's steady-state results ({@link IdentityThroughputBenchmark}) as Markdown. */
public final class IdentityThroughputMarkdown {

  private IdentityThroughputMarkdown() {}

  /**
   * What the keyed-state floor says of the gap to the pass-through: its own share of it, and the
   * CPU per event of the job's JVM it and weir take.
   */
  public static String floorSentence(IdentityThroughputBenchmark.Report r) {
    return String.format(
        "The keyed-state floor (decode, a keyed shuffle, one cached id read from RocksDB per event,"
            + " the same exactly-once sink, nothing else) ran at %.2f of the pass-through, its JVM"
            + " at %.1f µs per event (%,.0f events per CPU-second) against weir's %.1f µs.",
        r.floor().eventsPerSecond() / r.passThrough().eventsPerSecond(),
        1e6 / r.floor().eventsPerJvmCpuSecond(),
        r.floor().eventsPerJvmCpuSecond(),
        1e6 / r.weir().eventsPerJvmCpuSecond());
  }

  /** weir's Kafka producer settings against Kafka's defaults, both in the same run. */
  public static String producerSentence(IdentityThroughputBenchmark.Report r) {
    SteadyState.Side defaults = r.weirKafkaDefaults();
    return String.format(
        "Kafka producer: with Kafka 3.9's defaults (no linger, 16 KiB batches) instead of weir's"
            + " (`kafka.producer.linger` %d ms, `kafka.producer.batch-size` %d KiB) the job read"
            + " %,.0f events/s (%.2f× the rate), at %,.0f events per CPU-second of its JVM and"
            + " %.1f µs of Kafka's CPU per event, against %,.0f and %.1f µs.",
        WeirOptions.KAFKA_PRODUCER_LINGER.defaultValue().toMillis(),
        WeirOptions.KAFKA_PRODUCER_BATCH_SIZE.defaultValue().getKibiBytes(),
        defaults.eventsPerSecond(),
        defaults.eventsPerSecond() / r.weir().eventsPerSecond(),
        defaults.eventsPerJvmCpuSecond(),
        1000 * defaults.cpuPerThousand("Kafka"),
        r.weir().eventsPerJvmCpuSecond(),
        1000 * r.weir().cpuPerThousand("Kafka"));
  }

  /** The results as Markdown, with the command that made them. */
  public static String of(IdentityThroughputBenchmark.Report r, String command) {
    StringBuilder md = BenchReport.header("identity at steady state, from Kafka to Kafka", command);
    md.append(
        String.format(
            "input: %,d tracking events (JSON, %.0f bytes each on average, %d partitions, keyed by"
                + " distinct id) over %,d distinct ids: %.0f %% of the events repeat an id already"
                + " seen (a new id is spread evenly over the input, a repeat picks a seen id at"
                + " random), and %,d identify events on the identity topic; all written to fresh"
                + " topics before any clock started. Each side then read the whole tracking topic"
                + " from its beginning, one after the other, at parallelism %d, on this machine's"
                + " cores shared with Kafka, PostgreSQL and Elasticsearch. Rates are over each"
                + " side's steady window, from %.0f %% to %.0f %% of the input consumed (start-up,"
                + " the first checkpoints and the tail left out), from the source operator's own"
                + " record counter; a first, unmeasured pass of each side's job warmed the JIT. The"
                + " Flink jobs ran in this JVM's MiniCluster as the manifests configure them:"
                + " RocksDB state (incremental), exactly-once checkpoints every %d s (the deployed"
                + " interval), the memory of one slot.%n%n",
            r.events(),
            r.meanBytes(),
            r.partitions(),
            r.distinctIds(),
            100 * r.repeat(),
            r.identityEvents(),
            r.parallelism(),
            100 * SteadyState.WINDOW_FROM,
            100 * SteadyState.WINDOW_TO,
            r.checkpointInterval().toSeconds()));
    md.append(
        "- **decode, validate, discard**: `DecodedTopics.read` as `IdentityJob` reads its input (JSON"
            + " parse, JSON Schema validation, binding, the time check), then a discarding sink.\n"
            + "- **exactly-once pass-through**: every record written unchanged (key and value) to"
            + " another topic through `KafkaSinks.exactlyOnce`, transactions committed on each"
            + " checkpoint.\n"
            + "- **keyed-state floor**: the decoded events keyed by (project, distinct id), each"
            + " one's cached id read from RocksDB (written on the key's first event) and the event"
            + " written with it through the job's exactly-once sink: an enrichment from keyed state"
            + " and nothing else.\n"
            + "- **weir identity**: `IdentityJob` itself: both sources, the identify/alias/merge"
            + " resolver, the keyed enricher (keyed-state cache, batched lookups), its exactly-once"
            + " `tracking.enriched` sink and the batched identity-table writes to PostgreSQL.\n"
            + "- **weir identity, Kafka's producer defaults**: the same job with its Kafka sinks at"
            + " Kafka 3.9's producer defaults, on a fresh identity table.\n\n");
    md.append(floorSentence(r)).append("\n\n");
    md.append(producerSentence(r)).append("\n\n");
    Map<String, SteadyState.Side> limits = new LinkedHashMap<>();
    limits.put("vs decode", r.decode());
    limits.put("vs pass-through", r.passThrough());
    List<SteadyState.Side> sides =
        List.of(r.decode(), r.passThrough(), r.floor(), r.weir(), r.weirKafkaDefaults());
    md.append(SteadyStateTable.of(sides, limits).replace("benchmark JVM |", "the job's JVM |"));
    md.append("\n| side | events per CPU-second of the job's JVM |\n|---|---:|\n");
    for (SteadyState.Side s : sides) {
      md.append(String.format("| %s | %,.0f |%n", s.name(), s.eventsPerJvmCpuSecond()));
    }
    md.append(
        String.format(
            "%nweir's cache hit ratio (weirCacheHits / (hits + misses), from its start to the end"
                + " of the window): %.2f %%.%n",
            100 * r.hitRatio()));
    if (r.weirLatency() != null) {
      md.append(
          String.format(
              "%nEnd-to-end latency, after each side had read the whole pre-loaded topic: a live"
                  + " input of %,d events/s for %d s, each event's `time` its send time (= its"
                  + " Kafka CreateTime). *Written*: the output record's LogAppendTime (the output"
                  + " topics are LogAppendTime) minus the send time: through the job and into an"
                  + " open transaction. *Visible*: the time a `read_committed` consumer received it"
                  + " minus the send time: the transaction committed on the next checkpoint.%n%n"
                  + "| side | written p50 | written p99 | visible p50 | visible p99 |%n"
                  + "|---|---:|---:|---:|---:|%n",
              IdentityThroughputBenchmark.LATENCY_RATE, r.latencySeconds()));
      for (var e :
          Map.of(
                  "exactly-once pass-through",
                  r.passThroughLatency(),
                  "weir identity",
                  r.weirLatency())
              .entrySet()
              .stream()
              .sorted(Map.Entry.comparingByKey())
              .toList()) {
        IdentityThroughputBenchmark.Latency l = e.getValue();
        md.append(
            String.format(
                "| %s | %,d ms | %,d ms | %,d ms | %,d ms |%n",
                e.getKey(), l.appendP50(), l.appendP99(), l.visibleP50(), l.visibleP99()));
      }
    }
    md.append(
        String.format(
            "%nTargets (design.md):%n- weir / exactly-once pass-through: **%s** (target ≥ 0.5: %s)%n"
                + "- weir, events per CPU-second of the job's JVM at %.0f %% cache hits: **%,.0f**"
                + " (target ≥ 100,000: %s)%n",
            BenchReport.shown(r.ofPassThrough(), 0.5, ""),
            r.ofPassThrough() >= 0.5 ? "met" : "NOT met",
            100 * r.hitRatio(),
            r.perJvmCpuSecond(),
            r.perJvmCpuSecond() >= 100_000 ? "met" : "NOT met"));
    md.append(
        "\nThe job's JVM is this benchmark's (the MiniCluster runs in it): the Flink job, its Kafka"
            + " clients and JDBC driver, JIT and GC; its JIT and GC parts are already counted in it."
            + " Kafka's CPU includes the transactions' markers and the output's writes; PostgreSQL's"
            + " the identity table's lookups and writes.\n");
    return md.toString();
  }
}
