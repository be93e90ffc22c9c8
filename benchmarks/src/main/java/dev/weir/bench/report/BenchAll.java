package dev.weir.bench.report;

import dev.weir.bench.backfill.BackfillBenchmark;
import dev.weir.bench.backfill.BackfillMarkdown;
import dev.weir.bench.documents.DocumentsBenchmark;
import dev.weir.bench.documents.DocumentsMarkdown;
import dev.weir.bench.feed.FeedBenchmark;
import dev.weir.bench.feed.FeedMarkdown;
import dev.weir.bench.feed.FeedThroughputBenchmark;
import dev.weir.bench.feed.FeedThroughputMarkdown;
import dev.weir.bench.identity.IdentityBenchmark;
import dev.weir.bench.identity.IdentityMarkdown;
import dev.weir.bench.identity.IdentityThroughputBenchmark;
import dev.weir.bench.identity.IdentityThroughputMarkdown;
import dev.weir.bench.scale.DocumentsScaleBenchmark;
import dev.weir.bench.scale.DocumentsScaleMarkdown;
import dev.weir.bench.search.SearchIndexBenchmark;
import dev.weir.bench.search.SearchIndexMarkdown;
import dev.weir.bench.support.LoadGenerator;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * Every benchmark in one run on one machine: the limits of the raw services (the load generator),
 * each job against its naive way and as a ratio to the limit that bounds it, each job at
 * parallelism 1 and 2, a profile of each job, and the design's targets marked met or not. Writes a
 * Markdown report with PNG charts, and each job's own results file, into one folder.
 */
public final class BenchAll {

  /** How much each part does. */
  public record Sizes(
      String mode,
      int limitSeconds,
      int feedEvents,
      int feedKafkaEvents,
      long identityEvents,
      long identityKafkaEvents,
      int latencySeconds,
      int searchProducts,
      int searchRounds,
      int documentsProducts,
      int backfillDocuments,
      int backfillRounds) {

    public static Sizes quick() {
      return new Sizes(
          "quick", 5, 20_000, 200_000, 200_000, 200_000, 10, 2_000, 2, 2_000, 5_000, 1);
    }

    public static Sizes full() {
      return new Sizes(
          "full", 15, 50_000, 3_000_000, 1_000_000, 3_000_000, 30, 15_000, 2, 10_000, 50_000, 2);
    }
  }

  /** Runs of each service's limit, of {@link Sizes#limitSeconds} each: the median is reported. */
  static final int LIMIT_RUNS = 3;

  /**
   * A service's limit with the records of the job it bounds: Kafka with tracking events, PostgreSQL
   * with activity-feed's entry rows, Elasticsearch with the products documents the search and
   * backfill jobs send, each of its job's size; otherwise the DocumentDB insert benchmark's knobs:
   * three secondary indexes, batches of 1,000, two client threads. A fixed duration, not a count.
   */
  static LoadGenerator.Knobs limitKnobs(LoadGenerator.Target target, int seconds) {
    int size =
        switch (target) {
          case KAFKA_PRODUCE, KAFKA_CONSUME -> TRACKING_EVENT_BYTES;
          case POSTGRES_UPSERT, POSTGRES_COPY -> FEED_ENTRY_BYTES;
          case ELASTICSEARCH_BULK -> PRODUCT_DOCUMENT_BYTES;
        };
    return new LoadGenerator.Knobs(size, 3, 1000, 2, 0, Duration.ofSeconds(seconds), 0, 0);
  }

  /** A tracking event's average JSON, as identity-kafka measures it. */
  static final int TRACKING_EVENT_BYTES = 677;

  /** feed_entry's average row (pg_column_size) after activity-feed's steady-state benchmark. */
  static final int FEED_ENTRY_BYTES = 625;

  /** A products document, as the backfill counts its bytes. */
  static final int PRODUCT_DOCUMENT_BYTES = 6_500;

  private BenchAll() {}

  /** Runs everything; returns the report's path. {@code log} hears what is being measured. */
  public static Path run(LocalStack stack, Sizes sizes, Path out, Consumer<String> log)
      throws Exception {
    Files.createDirectories(out);
    stack.up();

    // 1. The limits of this machine's services: each client in a JVM of its own, its documents
    // made before its clock starts, runs of a fixed duration.
    Map<LoadGenerator.Target, List<LoadGenerator.Result>> limits = new LinkedHashMap<>();
    for (LoadGenerator.Target target : LoadGenerator.Target.values()) {
      List<LoadGenerator.Result> runs = new ArrayList<>();
      for (int run = 1; run <= LIMIT_RUNS; run++) {
        LoadGenerator.Result r =
            LoadGenerator.inOwnProcess(target, limitKnobs(target, sizes.limitSeconds()));
        log.accept(
            String.format(
                "limit: %s, run %d: %,.0f records/s", target.label, run, r.recordsPerSecond()));
        runs.add(r);
      }
      limits.put(target, runs);
    }

    // 2. Each job, profiled, at parallelism 1 (the backfill at 2, as it is benchmarked).
    List<Profiles.Profile> profiles = new ArrayList<>();
    log.accept("activity-feed");
    FeedBenchmark.Report feed =
        profiled(
            profiles,
            out,
            "activity-feed",
            () -> FeedBenchmark.run(stack, sizes.feedEvents(), List.of(5, 10), 0, 1));
    log.accept("identity");
    IdentityBenchmark.Result identity =
        profiled(
            profiles,
            out,
            "identity",
            () -> IdentityBenchmark.run(stack, sizes.identityEvents(), 0.99, 1));
    // Throughput from Kafka at steady state: no profiler in the run (its samples would cost CPU).
    log.accept("activity-feed from Kafka, steady state (no profiler)");
    FeedThroughputBenchmark.Report feedKafka =
        FeedThroughputBenchmark.run(stack, sizes.feedKafkaEvents(), 5, 2, sizes.latencySeconds());
    log.accept("identity from Kafka, steady state (no profiler)");
    IdentityThroughputBenchmark.Report identityKafka =
        IdentityThroughputBenchmark.run(
            stack, sizes.identityKafkaEvents(), 0.99, 2, 1, sizes.latencySeconds());
    log.accept("search-index");
    SearchIndexBenchmark.Result search =
        profiled(
            profiles,
            out,
            "search-index",
            () -> SearchIndexBenchmark.run(stack, sizes.searchProducts(), sizes.searchRounds(), 1));
    // The declared document's own targets: WAL against a hand-written UPDATE, a shared change.
    log.accept("search-index on the declared document: WAL by hand, a change every root shares");
    DocumentsBenchmark.Result documents =
        DocumentsBenchmark.run(
            stack,
            sizes.documentsProducts(),
            stack.envFile().getParent().resolve("bench-documents"));
    log.accept("backfill");
    BackfillBenchmark.Result backfill =
        profiled(
            profiles,
            out,
            "backfill",
            () ->
                BackfillBenchmark.run(stack, sizes.backfillDocuments(), 2, sizes.backfillRounds()));

    // The declared documents at scale, at the quick size whatever the mode: the full size takes
    // hours and is its own command (bench documents-scale).
    log.accept("search-index at scale: the initial sync of a generated store (quick size)");
    DocumentsScaleBenchmark.Result scale =
        DocumentsScaleBenchmark.run(
            stack,
            DocumentsScaleBenchmark.Options.quick(),
            stack.envFile().getParent().resolve("bench-scale"),
            log);

    // 3. The scaling curve: the same jobs at the other parallelism.
    log.accept("scaling: parallelism 2 (and the backfill at 1)");
    Map<String, Map<Integer, Double>> scaling = new LinkedHashMap<>();
    scaling.put(
        "activity-feed events/s",
        points(
            feed.results().get(0).weir().eventsPerSecond(),
            FeedBenchmark.run(stack, sizes.feedEvents(), List.of(5), 0, 2)
                .results()
                .get(0)
                .weir()
                .eventsPerSecond()));
    scaling.put(
        "identity events/s",
        points(
            identity.weir().steadyEventsPerSecond(),
            IdentityBenchmark.run(stack, sizes.identityEvents(), 0.99, 2)
                .weir()
                .steadyEventsPerSecond()));
    scaling.put(
        "search-index documents/s",
        points(
            search.weir().documentsPerSecond(),
            SearchIndexBenchmark.run(stack, sizes.searchProducts(), sizes.searchRounds(), 2)
                .weir()
                .documentsPerSecond()));
    BackfillBenchmark.Result backfillAtOne =
        BackfillBenchmark.run(stack, sizes.backfillDocuments(), 1, 1);
    Map<Integer, Double> backfillPoints = new LinkedHashMap<>();
    backfillPoints.put(1, backfillAtOne.first().copyPassDocsPerSecond());
    backfillPoints.put(2, backfill.first().copyPassDocsPerSecond());
    scaling.put("backfill documents/s", backfillPoints);

    // 4. Each job's own results file, then the report.
    String again = "bin/weir bench all" + (sizes.mode().equals("quick") ? " --quick" : "");
    Files.writeString(
        out.resolve("activity-feed.md"), FeedMarkdown.of(feed, again + " (activity-feed)"));
    Files.writeString(
        out.resolve("activity-feed-kafka.md"),
        FeedThroughputMarkdown.of(feedKafka, again + " (activity-feed from Kafka)"));
    Files.writeString(
        out.resolve("identity.md"), IdentityMarkdown.of(identity, again + " (identity)"));
    Files.writeString(
        out.resolve("identity-kafka.md"),
        IdentityThroughputMarkdown.of(identityKafka, again + " (identity from Kafka)"));
    Files.writeString(
        out.resolve("search-index.md"), SearchIndexMarkdown.of(search, again + " (search-index)"));
    Files.writeString(
        out.resolve("search-index-documents.md"),
        DocumentsMarkdown.of(documents, again + " (search-index, declared document)"));
    Files.writeString(
        out.resolve("backfill.md"), BackfillMarkdown.of(backfill, again + " (backfill)"));
    Files.writeString(
        out.resolve("documents-scale.md"),
        DocumentsScaleMarkdown.of(scale, again + " (search-index at scale, quick size)"));
    Path report = out.resolve("README.md");
    Files.writeString(
        report,
        BenchAllReport.markdown(
            out,
            sizes,
            again,
            new BenchAllReport.Measurements(
                limits,
                feed,
                feedKafka,
                identity,
                identityKafka,
                search,
                documents,
                backfill,
                scaling,
                profiles,
                failoverResults())));
    return report;
  }

  private static <T> T profiled(
      List<Profiles.Profile> profiles, Path out, String job, Callable<T> run) throws Exception {
    Map.Entry<T, Profiles.Profile> done =
        Profiles.record(job, out.resolve("profiles").resolve(job + ".jfr"), run);
    profiles.add(done.getValue());
    return done.getKey();
  }

  private static Map<Integer, Double> points(double one, double two) {
    Map<Integer, Double> points = new LinkedHashMap<>();
    points.put(1, one);
    points.put(2, two);
    return points;
  }

  /** The recovery table of the last ClusterFailoverITCase run on this checkout, if any. */
  private static String failoverResults() throws IOException {
    Path file = Path.of("integration-tests", "target", "failover-results.md");
    return Files.exists(file) ? Files.readString(file) : null;
  }
}
