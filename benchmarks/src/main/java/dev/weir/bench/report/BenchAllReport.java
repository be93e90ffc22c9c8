package dev.weir.bench.report;

import dev.weir.bench.backfill.BackfillBenchmark;
import dev.weir.bench.documents.DocumentsBenchmark;
import dev.weir.bench.feed.FeedBenchmark;
import dev.weir.bench.feed.FeedThroughputBenchmark;
import dev.weir.bench.identity.IdentityBenchmark;
import dev.weir.bench.identity.IdentityThroughputBenchmark;
import dev.weir.bench.search.SearchIndexBenchmark;
import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.LoadGenerator;
import dev.weir.bench.support.Median;
import dev.weir.bench.support.SteadyState;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The Markdown of {@link BenchAll}'s report, with its charts. */
final class BenchAllReport {

  private BenchAllReport() {}

  /**
   * What one run of {@link BenchAll} measured.
   *
   * @param scaling each job's throughput by parallelism
   * @param failover the last ClusterFailoverITCase table, or null
   */
  record Measurements(
      Map<LoadGenerator.Target, List<LoadGenerator.Result>> limitRuns,
      FeedBenchmark.Report feed,
      FeedThroughputBenchmark.Report feedKafka,
      IdentityBenchmark.Result identity,
      IdentityThroughputBenchmark.Report identityKafka,
      SearchIndexBenchmark.Result search,
      DocumentsBenchmark.Result documents,
      BackfillBenchmark.Result backfill,
      Map<String, Map<Integer, Double>> scaling,
      List<Profiles.Profile> profiles,
      String failover) {}

  /** The report of {@code m}; its charts are written to {@code dir}. */
  static String markdown(Path dir, BenchAll.Sizes sizes, String command, Measurements m)
      throws Exception {
    Map<LoadGenerator.Target, LoadGenerator.Result> limits = new LinkedHashMap<>();
    m.limitRuns()
        .forEach(
            (target, runs) ->
                limits.put(target, Median.of(runs, LoadGenerator.Result::recordsPerSecond)));
    FeedBenchmark.Report feed = m.feed();
    FeedThroughputBenchmark.Report feedKafka = m.feedKafka();
    IdentityBenchmark.Result identity = m.identity();
    IdentityThroughputBenchmark.Report identityKafka = m.identityKafka();
    SearchIndexBenchmark.Result search = m.search();
    BackfillBenchmark.Result backfill = m.backfill();
    Map<String, Map<Integer, Double>> scaling = m.scaling();
    List<Profiles.Profile> profiles = m.profiles();
    FeedBenchmark.Result feed80 = feed.results().get(0);
    double kafkaIn = limits.get(LoadGenerator.Target.KAFKA_CONSUME).recordsPerSecond();
    double esBulk = limits.get(LoadGenerator.Target.ELASTICSEARCH_BULK).recordsPerSecond();
    double searchWalRatio =
        ((double) search.naiveWrites().walBytes() / search.naiveWrites().changes())
            / ((double) search.weirWrites().walBytes() / search.weirWrites().changes());
    double identityPerCpuSecond = identityKafka.perJvmCpuSecond();

    StringBuilder md =
        BenchReport.header("weir benchmarks: every target, the limits, the scaling", command)
            .append("the local stack (PostgreSQL with fsync off, one Kafka broker, one")
            .append(" Elasticsearch node), ")
            .append(sizes.mode())
            .append(" sizes.\n\n");

    TargetsTable.append(md, m);

    md.append("\n## The limits of this machine's services\n\n")
        .append("`bin/weir bench load`, each client in a JVM of its own with its documents made")
        .append(" before its clock starts, ")
        .append(BenchAll.LIMIT_RUNS)
        .append(" runs of ")
        .append(sizes.limitSeconds())
        .append(" s per service (the median shown, and the range), with the records of the job")
        .append(" the service bounds; three secondary indexes, batches of 1,000, two client")
        .append(" threads. Each job's own limit (below) is measured in its own benchmark, on its")
        .append(" own input.\n\n| service | record | records/s (median) | range | MB/s |\n")
        .append("|---|---:|---:|---|---:|\n");
    Map<String, Double> throughput = new LinkedHashMap<>();
    m.limitRuns()
        .forEach(
            (target, runs) -> {
              LoadGenerator.Result median = limits.get(target);
              double low =
                  runs.stream().mapToDouble(LoadGenerator.Result::recordsPerSecond).min().orElse(0);
              double high =
                  runs.stream().mapToDouble(LoadGenerator.Result::recordsPerSecond).max().orElse(0);
              md.append(
                  String.format(
                      "| %s | %,d B | %,.0f | %,.0f–%,.0f | %.1f |\n",
                      target.label,
                      BenchAll.limitKnobs(target, sizes.limitSeconds()).docSize(),
                      median.recordsPerSecond(),
                      low,
                      high,
                      median.megabytesPerSecond()));
              throughput.put(target.label, median.recordsPerSecond());
            });

    md.append("\n## Each job against the limit that bounds it\n\n")
        .append("| job | its throughput | bounded by | ratio |\n|---|---:|---|---:|\n");
    jobRow(
        md,
        "activity-feed (events/s, replay)",
        feed80.weir().eventsPerSecond(),
        "Kafka consume",
        kafkaIn);
    jobRow(
        md,
        "activity-feed (events/s from Kafka, steady state)",
        feedKafka.weir().eventsPerSecond(),
        "decode, validate, discard, same topic",
        feedKafka.limit().eventsPerSecond());
    jobRow(
        md,
        "identity (events/s from Kafka to Kafka, steady state)",
        identityKafka.weir().eventsPerSecond(),
        "exactly-once pass-through, same topic",
        identityKafka.passThrough().eventsPerSecond());
    jobRow(
        md,
        "identity (events/s from Kafka to Kafka, steady state)",
        identityKafka.weir().eventsPerSecond(),
        "decode, validate, discard, same topic",
        identityKafka.decode().eventsPerSecond());
    jobRow(
        md,
        "search-index (documents/s of ~6 kB)",
        search.weir().documentsPerSecond(),
        String.format(
            "raw bulk of the same documents, %d passes at %s, the median",
            search.raw().passRates().size(), search.raw().range()),
        search.raw().documentsPerSecond());
    jobRow(
        md,
        "backfill (documents/s, whole run)",
        backfill.first().docsPerSecond(),
        "raw bulk of the same documents",
        backfill.rawDocsPerSecond());
    jobRow(
        md,
        "backfill (documents/s, copy pass)",
        backfill.first().copyPassDocsPerSecond(),
        "raw bulk of the same documents",
        backfill.rawDocsPerSecond());
    jobRow(
        md,
        "backfill (documents/s, copy pass)",
        backfill.first().copyPassDocsPerSecond(),
        "Elasticsearch bulk, products documents",
        esBulk);
    throughput.put("activity-feed", feed80.weir().eventsPerSecond());
    throughput.put("activity-feed (from Kafka)", feedKafka.weir().eventsPerSecond());
    throughput.put("identity (from Kafka)", identityKafka.weir().eventsPerSecond());
    throughput.put("search-index", search.weir().documentsPerSecond());
    throughput.put("backfill", backfill.first().copyPassDocsPerSecond());
    String limitsChart =
        Charts.bars(
            dir,
            "throughput",
            "Records per second: the services' limits and weir's jobs",
            "records/s (log scale)",
            throughput,
            true);
    md.append("\n![throughput](").append(limitsChart).append(")\n");
    md.append(
        String.format(
            "%nactivity-feed from Kafka (steady window, %.0f–%.0f %% of %,d events): %,.0f events/s,"
                + " %.3f CPU seconds of the job's JVM per 1,000 events",
            100 * SteadyState.WINDOW_FROM,
            100 * SteadyState.WINDOW_TO,
            feedKafka.events(),
            feedKafka.weir().eventsPerSecond(),
            feedKafka.weir().cpuPerThousand(CpuUse.THIS_JVM)));
    if (feedKafka.latency() != null) {
      md.append(
          String.format(
              "; end-to-end latency on a live input, visible p50 %,d ms / p99 %,d ms",
              feedKafka.latency().visibleP50(), feedKafka.latency().visibleP99()));
    }
    md.append(". [Details](activity-feed-kafka.md).\n");
    md.append(
        String.format(
            "%nidentity from Kafka (steady window, 30–90 %% of %,d events): %,.0f events/s, %.3f"
                + " CPU seconds of the job's JVM per 1,000 events (%,.0f events per CPU-second)",
            identityKafka.events(),
            identityKafka.weir().eventsPerSecond(),
            identityKafka.weir().cpuPerThousand(CpuUse.THIS_JVM),
            identityPerCpuSecond));
    if (identityKafka.weirLatency() != null) {
      IdentityThroughputBenchmark.Latency l = identityKafka.weirLatency();
      md.append(
          String.format(
              "; end-to-end latency on a live input, written p50 %,d ms / p99 %,d ms, visible to"
                  + " a read-committed consumer p50 %,d ms / p99 %,d ms (the exactly-once commit"
                  + " waits for the checkpoint)",
              l.appendP50(), l.appendP99(), l.visibleP50(), l.visibleP99()));
    }
    md.append(". [Details](identity-kafka.md).\n");

    md.append("\n## weir against the naive way, side by side on the same input\n\n")
        .append("| comparison | weir | naive | naive / weir |\n|---|---:|---:|---:|\n");
    Map<String, Double> ratios = new LinkedHashMap<>();
    for (FeedBenchmark.Result r : feed.results()) {
      String what =
          String.format(
              "activity-feed WAL bytes/event, %.0f %% collating", 100 * r.collatingShare());
      md.append(
          String.format(
              "| %s | %.0f | %.0f | %s |\n",
              what, r.weir().walPerEvent(), r.naive().walPerEvent(), x(r.walRatio())));
      ratios.put(String.format("feed WAL, %.0f %%", 100 * r.collatingShare()), r.walRatio());
    }
    double statements =
        identity.naive().statementsPerEvent() / identity.weir().statementsPerEvent();
    md.append(
        String.format(
            "| identity database statements/event | %.3f | %.2f | %s |\n",
            identity.weir().statementsPerEvent(),
            identity.naive().statementsPerEvent(),
            x(statements)));
    md.append(
        String.format(
            "| identity events/s | %,.0f | %,.0f | %.2f (weir is faster) |\n",
            identity.weir().eventsPerSecond(),
            identity.naive().eventsPerSecond(),
            identity.naive().eventsPerSecond() / identity.weir().eventsPerSecond()));
    md.append(
        String.format(
            "| search-index WAL bytes per price-only change | %,.0f | %,.0f | %s |\n",
            (double) search.weirWrites().walBytes() / search.weirWrites().changes(),
            (double) search.naiveWrites().walBytes() / search.naiveWrites().changes(),
            x(searchWalRatio)));
    md.append(
        String.format(
            "| search-index TOAST tuples written | %,d | %,d | |\n",
            search.weirWrites().toast(), search.naiveWrites().toast()));
    ratios.put("identity statements", statements);
    ratios.put("search-index WAL", searchWalRatio);
    String ratiosChart =
        Charts.bars(
            dir,
            "weir-vs-naive",
            "How many times less work weir does than the naive way",
            "naive / weir (log scale)",
            ratios,
            true);
    md.append("\n![weir vs naive](").append(ratiosChart).append(")\n");

    md.append("\n## Scaling: throughput by parallelism\n\n")
        .append("This machine has ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(
            " cores, shared with Kafka, PostgreSQL and Elasticsearch: p=1 and p=2 are measured.")
        .append(" A bigger machine shows where each job stops scaling.\n\n")
        .append("| job | p=1 | p=2 | p=2 / p=1 |\n|---|---:|---:|---:|\n");
    scaling.forEach(
        (job, points) ->
            md.append(
                String.format(
                    "| %s | %,.0f | %,.0f | %.2f |\n",
                    job, points.get(1), points.get(2), points.get(2) / points.get(1))));
    Map<String, Map<Integer, Double>> relative = new LinkedHashMap<>();
    scaling.forEach(
        (job, points) -> {
          Map<Integer, Double> r = new LinkedHashMap<>();
          points.forEach((p, v) -> r.put(p, v / points.get(1)));
          relative.put(job, r);
        });
    String scalingChart =
        Charts.lines(
            dir,
            "scaling",
            "Throughput by parallelism, relative to p=1",
            "parallelism",
            "throughput / throughput at p=1",
            relative);
    md.append("\n![scaling](").append(scalingChart).append(")\n");

    md.append("\n## Where the time goes (JDK Flight Recorder, each job's run)\n\n")
        .append("CPU samples of the benchmark's JVM (the jobs run in its MiniCluster), grouped by")
        .append(" thread: a Flink task thread is one stage (its chained operators). Methods are")
        .append(" counted at the first frame outside the JDK. The recordings are in `profiles/`")
        .append(" (open them with JDK Mission Control or `jfr print`).\n\n");
    for (Profiles.Profile p : profiles) {
      md.append(profile(p)).append('\n');
    }
    md.append(
            "\nEach job's own results: [activity-feed](activity-feed.md), [identity](identity.md),")
        .append(" [identity from Kafka](identity-kafka.md),")
        .append(" [search-index](search-index.md), [backfill](backfill.md),")
        .append(" [search-index at scale](documents-scale.md).\n");
    return md.toString();
  }

  private static void jobRow(
      StringBuilder md, String job, double throughput, String limit, double limitThroughput) {
    md.append(
        String.format(
            "| %s | %,.0f | %s (%,.0f/s) | %.2f |\n",
            job, throughput, limit, limitThroughput, throughput / limitThroughput));
  }

  private static String x(double ratio) {
    return String.format("%.1f×", ratio);
  }

  /**
   * A profile as a paragraph: its busiest p.stage(), where that stage's time goes, its hottest
   * methods.
   */
  private static String profile(Profiles.Profile p) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            "**%s**: %,d CPU samples in the benchmark's JVM; the job's busiest stage is `%s` (%d %%"
                + " of them). Its time goes to: %s.",
            p.job(),
            p.samples(),
            p.stage(),
            Math.round(100.0 * p.stageSamples() / Math.max(1, p.samples())),
            p.stageAreas().entrySet().stream()
                .limit(4)
                .map(
                    e ->
                        e.getKey()
                            + " "
                            + Math.round(100.0 * e.getValue() / Math.max(1, p.stageSamples()))
                            + " %")
                .collect(Collectors.joining(", "))));
    md.append(" Hottest methods:\n\n");
    p.stageMethods().entrySet().stream()
        .limit(5)
        .forEach(
            e ->
                md.append("- `")
                    .append(e.getKey())
                    .append("` ")
                    .append(Math.round(100.0 * e.getValue() / Math.max(1, p.stageSamples())))
                    .append(" %\n"));
    return md.toString();
  }
}
