package dev.weir.bench;

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
import dev.weir.bench.identity.SpannerIdentityPass;
import dev.weir.bench.report.BenchAll;
import dev.weir.bench.scale.DocumentsScaleCommand;
import dev.weir.bench.search.SearchIndexBenchmark;
import dev.weir.bench.search.SearchIndexMarkdown;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.LoadGenerator;
import dev.weir.cli.DurationConverter;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    subcommands = DocumentsScaleCommand.class,
    description =
        "Benchmarks measured side by side in one run on the local stack; results go to benchmarks/results/.")
public final class BenchCommand {

  @Spec CommandSpec spec;

  @Command(
      name = "activity-feed",
      mixinStandardHelpOptions = true,
      description =
          "weir's collation vs insert-new + delete-old on the same input: WAL, row writes, dead tuples, events/s.")
  int activityFeed(
      @Option(
              names = "--events",
              defaultValue = "50000",
              description = "Events to generate (default: ${DEFAULT-VALUE}).")
          int events,
      @Option(
              names = "--bursts",
              split = ",",
              defaultValue = "5,10,20",
              description =
                  "Events per entry, one input each; the first is the one the targets are judged on"
                      + " (5: 80%% collate) (default: ${DEFAULT-VALUE}).")
          List<Integer> bursts,
      @Option(
              names = "--paced-entries",
              defaultValue = "2000",
              description =
                  "Entries of the paced input, whose rounds arrive further apart than the coalescing"
                      + " interval; 0 skips it (default: ${DEFAULT-VALUE}).")
          int pacedEntries,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/activity-feed.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    FeedBenchmark.Report report =
        FeedBenchmark.run(LocalStack.fromEnvironment(), events, bursts, pacedEntries);
    String md =
        FeedMarkdown.of(
            report,
            "bin/weir bench activity-feed --events "
                + events
                + " --bursts "
                + bursts.stream().map(String::valueOf).collect(Collectors.joining(","))
                + " --paced-entries "
                + pacedEntries);
    writeResults(md, out);
    return 0;
  }

  @Command(
      name = "activity-feed-kafka",
      mixinStandardHelpOptions = true,
      description =
          "activity-feed at steady state from a pre-filled Kafka topic, as deployed (RocksDB,"
              + " checkpoints), next to a decode-and-discard job and the naive JDBC loop reading the"
              + " same topic: events/s, ratios, CPU per 1,000 events by process.")
  int activityFeedKafka(
      @Option(
              names = "--events",
              defaultValue = "3000000",
              description = "Events in the topic (default: ${DEFAULT-VALUE}).")
          int events,
      @Option(
              names = "--burst",
              defaultValue = "5",
              description = "Events per entry (default: ${DEFAULT-VALUE}: 80%% collate).")
          int burst,
      @Option(
              names = "--partitions",
              defaultValue = "2",
              description = "Partitions of the topic (default: ${DEFAULT-VALUE}).")
          int partitions,
      @Option(
              names = "--latency-seconds",
              defaultValue = "30",
              description =
                  "Seconds of live input for the end-to-end latency, after the topic (default:"
                      + " ${DEFAULT-VALUE}; 0: not measured).")
          int latencySeconds,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/activity-feed-kafka.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    FeedThroughputBenchmark.Report report =
        FeedThroughputBenchmark.run(
            LocalStack.fromEnvironment(), events, burst, partitions, latencySeconds);
    writeResults(
        FeedThroughputMarkdown.of(
            report,
            String.format(
                "bin/weir bench activity-feed-kafka --events %d --burst %d --partitions %d"
                    + " --latency-seconds %d",
                events, burst, partitions, latencySeconds)),
        out);
    return 0;
  }

  @Command(
      name = "identity",
      mixinStandardHelpOptions = true,
      description =
          "weir's identity enrichment vs one lookup + one full-row upsert per event: events/s per core, statements/event.")
  int identity(
      @Option(
              names = "--events",
              defaultValue = "500000",
              description = "Tracking events to generate (default: ${DEFAULT-VALUE}).")
          long events,
      @Option(
              names = "--repeat",
              defaultValue = "0.99",
              description =
                  "Share of events whose distinct id was seen before (default: ${DEFAULT-VALUE}).")
          double repeat,
      @Option(
              names = "--spanner-events",
              defaultValue = "20000",
              description =
                  "Events of the pass on Cloud Spanner's emulator, run when the stack runs it; 0"
                      + " skips it (default: ${DEFAULT-VALUE}).")
          long spannerEvents,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/identity.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    LocalStack stack = LocalStack.fromEnvironment();
    IdentityBenchmark.Result result = IdentityBenchmark.run(stack, events, repeat);
    String md =
        IdentityMarkdown.of(
            result,
            "bin/weir bench identity --events "
                + events
                + " --repeat "
                + repeat
                + " --spanner-events "
                + spannerEvents);
    if (spannerEvents > 0 && SpannerIdentityPass.available(stack)) {
      md += SpannerIdentityPass.markdown(SpannerIdentityPass.run(stack, spannerEvents, repeat));
    }
    writeResults(md, out);
    return 0;
  }

  @Command(
      name = "identity-kafka",
      mixinStandardHelpOptions = true,
      description =
          "identity at steady state from a pre-filled Kafka topic to Kafka, as deployed (RocksDB,"
              + " checkpoints, exactly-once sink, PostgreSQL identity table), next to a"
              + " decode-and-discard job and an exactly-once pass-through of the same topic:"
              + " events/s, ratios, CPU per 1,000 events by process, events per CPU-second,"
              + " end-to-end latency.")
  int identityKafka(
      @Option(
              names = "--events",
              defaultValue = "3000000",
              description = "Tracking events in the topic (default: ${DEFAULT-VALUE}).")
          long events,
      @Option(
              names = "--repeat",
              defaultValue = "0.99",
              description =
                  "Share of events whose distinct id was seen before: the cache hit ratio"
                      + " (default: ${DEFAULT-VALUE}).")
          double repeat,
      @Option(
              names = "--partitions",
              defaultValue = "2",
              description = "Partitions of the topics (default: ${DEFAULT-VALUE}).")
          int partitions,
      @Option(
              names = "--parallelism",
              defaultValue = "1",
              description = "Parallelism of every side (default: ${DEFAULT-VALUE}).")
          int parallelism,
      @Option(
              names = "--latency-seconds",
              defaultValue = "30",
              description =
                  "Seconds of paced live input for the latencies; 0 skips them (default:"
                      + " ${DEFAULT-VALUE}).")
          int latencySeconds,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/identity-kafka.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    IdentityThroughputBenchmark.Report report =
        IdentityThroughputBenchmark.run(
            LocalStack.fromEnvironment(), events, repeat, partitions, parallelism, latencySeconds);
    writeResults(
        IdentityThroughputMarkdown.of(
            report,
            String.format(
                "bin/weir bench identity-kafka --events %d --repeat %s --partitions %d"
                    + " --parallelism %d --latency-seconds %d",
                events, repeat, partitions, parallelism, latencySeconds)),
        out);
    return 0;
  }

  @Command(
      name = "search-index",
      mixinStandardHelpOptions = true,
      description =
          "WAL and TOAST writes of price-only changes (weir vs a full-row upsert) and end-to-end"
              + " documents/s (weir vs a raw Elasticsearch bulk of the same documents).")
  int searchIndex(
      @Option(
              names = "--products",
              defaultValue = "15000",
              description = "Products in the catalog (default: ${DEFAULT-VALUE}).")
          int products,
      @Option(
              names = "--rounds",
              defaultValue = "2",
              description =
                  "Rounds of price changes, one per product each (default: ${DEFAULT-VALUE}).")
          int rounds,
      @Option(
              names = "--parallelism",
              defaultValue = "1",
              description =
                  "The job's parallelism; the raw bulk uses one loader per core (default:"
                      + " ${DEFAULT-VALUE}).")
          int parallelism,
      @Option(
              names = "--description-chars",
              defaultValue = "6000",
              description =
                  "Characters of each product's description, the large value a price-only change"
                      + " must not re-send (default: ${DEFAULT-VALUE}).")
          int descriptionChars,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/search-index.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    SearchIndexBenchmark.Result result =
        SearchIndexBenchmark.run(
            LocalStack.fromEnvironment(), products, rounds, parallelism, descriptionChars);
    String md =
        SearchIndexMarkdown.of(
            result,
            "bin/weir bench search-index --products "
                + products
                + " --rounds "
                + rounds
                + (parallelism == 1 ? "" : " --parallelism " + parallelism)
                + (descriptionChars == CatalogLoader.DEFAULT_DESCRIPTION_CHARS
                    ? ""
                    : " --description-chars " + descriptionChars)
                + (out.equals(Path.of("benchmarks/results/search-index.md"))
                    ? ""
                    : " --out " + out));
    writeResults(md, out);
    return 0;
  }

  @Command(
      name = "documents",
      mixinStandardHelpOptions = true,
      description =
          "search-index on today's catalog declared as schemas/documents/products.json: a brand"
              + " shared by every product renamed (seconds until every document shows it, writes"
              + " per document), WAL per price-only change vs a hand-written UPDATE, end-to-end"
              + " documents/s vs raw bulk.")
  int documents(
      @Option(
              names = "--products",
              defaultValue = "10000",
              description = "Products, all of one brand (default: ${DEFAULT-VALUE}).")
          int products,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/search-index-documents.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    LocalStack stack = LocalStack.fromEnvironment();
    DocumentsBenchmark.Result result =
        DocumentsBenchmark.run(
            stack, products, stack.envFile().getParent().resolve("bench-documents"));
    writeResults(
        DocumentsMarkdown.of(result, "bin/weir bench documents --products " + products), out);
    return 0;
  }

  @Command(
      name = "backfill",
      mixinStandardHelpOptions = true,
      description =
          "A backfill's documents/s vs a raw Elasticsearch bulk of the same documents, and the bytes"
              + " a second run over the unchanged index sends.")
  int backfill(
      @Option(
              names = "--documents",
              defaultValue = "50000",
              description = "Documents in the copy (default: ${DEFAULT-VALUE}).")
          int documents,
      @Option(
              names = "--parallelism",
              defaultValue = "2",
              description =
                  "The backfill's parallelism, and the raw bulk's loaders (default: ${DEFAULT-VALUE}).")
          int parallelism,
      @Option(
              names = "--rounds",
              defaultValue = "2",
              description =
                  "Rounds of each side in turn, the best kept (default: ${DEFAULT-VALUE}).")
          int rounds,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/backfill.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    BackfillBenchmark.Result result =
        BackfillBenchmark.run(LocalStack.fromEnvironment(), documents, parallelism, rounds);
    String md =
        BackfillMarkdown.of(
            result,
            "bin/weir bench backfill --documents "
                + documents
                + " --parallelism "
                + parallelism
                + " --rounds "
                + rounds);
    writeResults(md, out);
    return 0;
  }

  @Command(
      name = "all",
      mixinStandardHelpOptions = true,
      description =
          "Every benchmark in one run: the services' limits, each job vs its naive way and its"
              + " limit, parallelism 1 and 2, a profile of each job, the targets marked met or"
              + " not. A Markdown report with PNG charts.")
  int all(
      @Option(
              names = "--quick",
              description = "Small inputs: a few minutes on 2 cores (default: the full sizes).")
          boolean quick,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/report",
              description = "Results folder (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    long start = System.nanoTime();
    Path report =
        BenchAll.run(
            LocalStack.fromEnvironment(),
            quick ? BenchAll.Sizes.quick() : BenchAll.Sizes.full(),
            out,
            step -> spec.commandLine().getOut().println("weir bench all: " + step));
    spec.commandLine().getOut().println(Files.readString(report));
    spec.commandLine()
        .getOut()
        .printf(
            "report: %s (charts next to it), in %.0f s%n",
            report, (System.nanoTime() - start) / 1e9);
    return 0;
  }

  @Command(
      name = "load",
      mixinStandardHelpOptions = true,
      description =
          "The load generator alone: writes generated documents to one service of the local"
              + " stack and reports records/s and MB/s.")
  int load(
      @Option(
              names = "--target",
              required = true,
              description = "One of: ${COMPLETION-CANDIDATES}.")
          LoadGenerator.Target target,
      @Option(
              names = "--doc-size",
              defaultValue = "1024",
              description = "Bytes per document (default: ${DEFAULT-VALUE}).")
          int docSize,
      @Option(
              names = "--indexes",
              defaultValue = "3",
              description =
                  "Secondary indexes, 0-3, in PostgreSQL and Elasticsearch (default: ${DEFAULT-VALUE}).")
          int indexes,
      @Option(
              names = "--batch",
              defaultValue = "1000",
              description = "Records per batch (default: ${DEFAULT-VALUE}).")
          int batch,
      @Option(
              names = "--concurrency",
              defaultValue = "2",
              description = "Client threads (default: ${DEFAULT-VALUE}).")
          int concurrency,
      @Option(
              names = "--count",
              defaultValue = "100000",
              description = "Records to write (default: ${DEFAULT-VALUE}).")
          long count,
      @Option(
              names = "--duration",
              defaultValue = "0s",
              converter = DurationConverter.class,
              description =
                  "Write for this long instead of --count, e.g. 30s (default: ${DEFAULT-VALUE}).")
          Duration duration,
      @Option(
              names = "--skew",
              defaultValue = "0",
              description =
                  "0 to <1: how much repeated keys lean to the first keys, the hot ones (default: ${DEFAULT-VALUE}).")
          double skew,
      @Option(
              names = "--repeat",
              defaultValue = "0",
              description =
                  "Share of records whose key was used before: updates, not inserts (default: ${DEFAULT-VALUE}).")
          double repeat)
      throws Exception {
    var knobs =
        new LoadGenerator.Knobs(
            docSize, indexes, batch, concurrency, count, duration, skew, repeat);
    LocalStack stack = LocalStack.fromEnvironment();
    var result =
        LoadGenerator.run(
            BenchEnvironment.freshDatabase(stack, stack.up(), "bench_load"), target, knobs);
    spec.commandLine()
        .getOut()
        .printf(
            "%s: %,d records in %.1f s: %,.0f records/s, %.1f MB/s (%s)%n",
            target,
            result.records(),
            result.seconds(),
            result.recordsPerSecond(),
            result.megabytesPerSecond(),
            knobs.describe());
    return 0;
  }

  /** Writes a benchmark's Markdown to its results file and shows it. */
  private void writeResults(String md, Path out) throws IOException {
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, md);
    spec.commandLine().getOut().println(md);
    spec.commandLine().getOut().println("written to " + out);
  }
}
