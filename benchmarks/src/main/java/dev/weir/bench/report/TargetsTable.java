package dev.weir.bench.report;

import dev.weir.bench.backfill.BackfillBenchmark;
import dev.weir.bench.documents.DocumentsBenchmark;
import dev.weir.bench.feed.FeedBenchmark;
import dev.weir.bench.feed.FeedThroughputBenchmark;
import dev.weir.bench.feed.FeedThroughputMarkdown;
import dev.weir.bench.identity.IdentityThroughputBenchmark;
import dev.weir.bench.identity.IdentityThroughputMarkdown;
import dev.weir.bench.search.Pass;
import dev.weir.bench.search.SearchIndexBenchmark;
import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.SteadyState;
import dev.weir.common.config.WeirOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The report's first section: the design's targets, each marked met or not by the run's own
 * measurements, and for the ones not met what bounds them.
 */
final class TargetsTable {

  private TargetsTable() {}

  /**
   * The design's targets, each judged by the run's own measurements, and what bounds the ones not
   * met; appended to {@code md}.
   */
  static void append(StringBuilder md, BenchAllReport.Measurements m) {
    FeedThroughputBenchmark.Report feedKafka = m.feedKafka();
    IdentityThroughputBenchmark.Report identityKafka = m.identityKafka();
    SearchIndexBenchmark.Result search = m.search();
    DocumentsBenchmark.Result documents = m.documents();
    BackfillBenchmark.Result backfill = m.backfill();
    String failover = m.failover();
    FeedBenchmark.Result feed80 = m.feed().results().get(0);
    double searchVsRaw = search.judgedRatio();
    double backfillVsRaw = backfill.first().docsPerSecond() / backfill.rawDocsPerSecond();
    double rerunBytes =
        (double) backfill.second().summary().bytesSent()
            / Math.max(1, backfill.first().summary().bytesSent());
    double feedOfLimit = feedKafka.weir().eventsPerSecond() / feedKafka.limit().eventsPerSecond();
    double feedOfNaive = feedKafka.weir().eventsPerSecond() / feedKafka.naive().eventsPerSecond();
    double identityOfPassThrough = identityKafka.ofPassThrough();
    double identityPerCpuSecond = identityKafka.perJvmCpuSecond();

    md.append("## The design's targets\n\n")
        .append("Each judged by this run's own measurements; throughput at steady state, from")
        .append(
            " Kafka, against the limit measured in the same run.\n\n| what | target | measured | |\n|---|---|---:|---|\n");
    List<String> bounds = new ArrayList<>();
    int cores = Runtime.getRuntime().availableProcessors();
    row(
        md,
        "activity-feed: events/s from Kafka / decode-and-discard of the same topic (steady state)",
        "≥ 0.5",
        BenchReport.shown(feedOfLimit, 0.5, ""),
        feedOfLimit >= 0.5);
    row(
        md,
        "activity-feed: events/s from Kafka / the naive JDBC loop on the same topic",
        "≥ 2×",
        BenchReport.shown(feedOfNaive, 2, "×"),
        feedOfNaive >= 2);
    if (feedOfLimit < 0.5 || feedOfNaive < 2) {
      bounds.add(
          String.format(
              "**activity-feed from Kafka: CPU per event.** In weir's steady window the processes"
                  + " measured kept %.0f %% of the %d cores busy; weir's job, PostgreSQL and Kafka"
                  + " used %.0f µs of CPU per event, the decode-and-discard job %.0f µs, the naive"
                  + " loop %.0f µs. With the cores busy a rate follows the inverse of its CPU per"
                  + " event: at most about %.2f of the limit (measured %.2f) and %.2f× the naive"
                  + " loop (measured %.2f×). %s %s Where the job's CPU goes: the profile below and"
                  + " [activity-feed-kafka.md](activity-feed-kafka.md).",
              100 * feedKafka.weir().busyShare(cores),
              cores,
              feedKafka.weir().cpuMicrosPerEvent(),
              feedKafka.limit().cpuMicrosPerEvent(),
              feedKafka.naive().cpuMicrosPerEvent(),
              feedKafka.limit().cpuMicrosPerEvent() / feedKafka.weir().cpuMicrosPerEvent(),
              feedOfLimit,
              feedKafka.naive().cpuMicrosPerEvent() / feedKafka.weir().cpuMicrosPerEvent(),
              feedOfNaive,
              FeedThroughputMarkdown.floorSentence(feedKafka),
              FeedThroughputMarkdown.threadSentence(feedKafka)));
    }
    row(
        md,
        "activity-feed: row writes per event (80 % collating)",
        "≤ 0.2",
        String.format("%.3f", feed80.weir().rowWritesPerEvent()),
        feed80.weir().rowWritesPerEvent() <= 0.2 + 1e-9);
    row(
        md,
        "activity-feed: WAL per entry / each final entry INSERTed once (80 % collating)",
        "≤ 1.2×",
        BenchReport.shown(feed80.walOverFloor(), 1.2, "×"),
        feed80.walOverFloor() <= 1.2);
    row(
        md,
        "identity: Kafka → Kafka events/s / an exactly-once pass-through (steady state)",
        "≥ 0.5",
        BenchReport.shown(identityOfPassThrough, 0.5, ""),
        identityOfPassThrough >= 0.5);
    row(
        md,
        String.format(
            "identity: events per CPU-second of the job's JVM, from Kafka at %.0f %% cache hits",
            100 * identityKafka.hitRatio()),
        "≥ 100k",
        String.format("%,.0f", identityPerCpuSecond),
        identityPerCpuSecond >= 100_000);
    if (identityOfPassThrough < 0.5 || identityPerCpuSecond < 100_000) {
      SteadyState.Side pass = identityKafka.passThrough();
      bounds.add(
          String.format(
              "**identity from Kafka: CPU per event.** In weir's steady window the processes"
                  + " measured kept %.0f %% of the %d cores busy; weir's job, Kafka and PostgreSQL"
                  + " used %.0f µs of CPU per event, the exactly-once pass-through %.0f µs: at most"
                  + " about %.2f of it with the cores busy (measured %.2f). The pass-through's own"
                  + " JVM, a consumer and a transactional producer and nothing else, used %.1f µs"
                  + " per event (%,.0f events per CPU-second): the Kafka ends any such job has"
                  + " leave %.1f µs of the 10 µs the per-CPU-second target allows. %s %s Details:"
                  + " [identity-kafka.md](identity-kafka.md).",
              100 * identityKafka.weir().busyShare(cores),
              cores,
              identityKafka.weir().cpuMicrosPerEvent(),
              pass.cpuMicrosPerEvent(),
              pass.cpuMicrosPerEvent() / identityKafka.weir().cpuMicrosPerEvent(),
              identityOfPassThrough,
              1e6 / pass.eventsPerJvmCpuSecond(),
              pass.eventsPerJvmCpuSecond(),
              Math.max(0, 10 - 1e6 / pass.eventsPerJvmCpuSecond()),
              IdentityThroughputMarkdown.floorSentence(identityKafka),
              IdentityThroughputMarkdown.producerSentence(identityKafka)));
    }
    double walOverHand = documents.walOverHandWritten();
    row(
        md,
        "search-index: WAL per price-only change / a hand-written UPDATE of the changed columns",
        "≤ 1.2×",
        BenchReport.shown(walOverHand, 1.2, "×"),
        walOverHand <= 1.2);
    long toast = search.weirWrites().toast() + documents.declaredWrites().toast();
    row(
        md,
        "search-index: TOAST tuples written by price-only changes",
        "0",
        Long.toString(toast),
        toast == 0);
    row(
        md,
        "search-index: end-to-end documents/s / raw bulk of the same documents, "
            + search.judgedMedianOf()
            + " ("
            + search.judgedOn()
            + ")",
        "≥ 0.9",
        BenchReport.shown(searchVsRaw, 0.9, ""),
        searchVsRaw >= 0.9);
    if (searchVsRaw < 0.9) {
      Pass judged = search.judgedPass();
      bounds.add(
          String.format(
              "**search-index end to end.** Over the whole load %.2f, after warm-up %s, against"
                  + " the raw bulk at %,.0f/s over the whole load (%s); the Elasticsearch CPU per"
                  + " 1,000 documents and the split by process are in"
                  + " [search-index.md](search-index.md).",
              judged.ratio(),
              judged.steadyRatio().map(v -> String.format("%.2f", v)).orElse("not measured"),
              judged.raw().documentsPerSecond(),
              judged.pairRatios().isEmpty()
                  ? judged.raw().passesSummary()
                  : judged.pairsSummary()));
    }
    double fanOut = documents.fanOutOverRawBulk();
    row(
        md,
        String.format(
            "search-index: a change every one of %,d roots shares, until all show it / a raw bulk"
                + " of those documents, median of %d passes",
            documents.rename().documents(), documents.declared().raw().passRates().size()),
        "≤ 2×",
        BenchReport.shown(fanOut, 2, "×"),
        fanOut <= 2);
    if (fanOut > 2) {
      bounds.add(
          String.format(
                  "**search-index, a shared change.** Each document is written once to the copy and"
                      + " once to Elasticsearch (%.2f and %.2f per document), as in a load: the"
                      + " rename reaches the documents at %,.0f/s, the job's end-to-end load ran at"
                      + " %,.0f/s and the raw bulk at %,.0f/s (%s) in the same run. The raw bulk"
                      + " loads a fresh index; a rename overwrites the documents the index holds,"
                      + " and a raw bulk overwriting them, timed as the rename is, ran at %,.0f/s"
                      + " (the rename took %.2f× its time). The cores were not what bounded the"
                      + " rename: during it the processes measured kept %.0f %% of the %d cores"
                      + " busy, during the raw overwrite %.0f %%. Of its %.1f s, %.1f s passed"
                      + " before the change was readable in the capture's topic (cdc-catalog's"
                      + " exactly-once output commits with its checkpoints, every %d s by"
                      + " default); from then the documents took %.2f× the raw bulk's time."
                      + " Details: [search-index-documents.md](search-index-documents.md).",
                  documents.rename().copyRowsPerDocument(),
                  documents.rename().indexOperationsPerDocument(),
                  documents.rename().documents() / documents.rename().seconds(),
                  documents.declared().job().documentsPerSecond(),
                  documents.declared().raw().documentsPerSecond(),
                  documents.declared().raw().passesSummary(),
                  documents.rawOverwrite().documentsPerSecond(),
                  documents.rename().seconds() / documents.rawOverwrite().seconds(),
                  100 * documents.rename().busyShare(cores),
                  cores,
                  100 * documents.rawOverwrite().busyShare(cores),
                  documents.rename().seconds(),
                  documents.rename().readableSeconds(),
                  WeirOptions.CHECKPOINT_INTERVAL.defaultValue().toSeconds(),
                  documents.fanOutFromReadableOverRawBulk())
              + documents.fanOutOverRawOwnCore().map(r -> ownCoreRename(documents, r)).orElse(""));
    }
    row(
        md,
        "backfill: documents/s / raw bulk of the same documents (whole run)",
        "≥ 0.9",
        BenchReport.shown(backfillVsRaw, 0.9, ""),
        backfillVsRaw >= 0.9);
    if (backfillVsRaw < 0.9) {
      double whole = backfill.first().summary().elapsed().toMillis() / 1e3;
      bounds.add(
          String.format(
              "**backfill, whole run.** The copy pass alone: %.2f of the raw bulk (%.1f s of the"
                  + " run's %.1f s). The run's steps: %s (the start plans the document and"
                  + " counts the copy; the catch-up pass covers only the documents written since"
                  + " the copy pass began; the deletes check reads every id the target holds).%s"
                  + " Details: [backfill.md](backfill.md).",
              backfill.first().copyPassDocsPerSecond() / backfill.rawDocsPerSecond(),
              backfill.first().copyPassSeconds(),
              whole,
              backfill.first().summary().stepsLine(),
              Double.isNaN(backfill.cpuBound())
                  ? ""
                  : String.format(
                      " The cores: the raw bulk's processes used %.2f of the CPU seconds the"
                          + " whole run's did (reading the copy costs PostgreSQL and the job CPU"
                          + " the raw bulk, its documents in memory, does not spend), so with the"
                          + " cores busy the whole run reaches at most about that ratio.",
                      backfill.cpuBound())));
    }
    row(
        md,
        "backfill: bytes sent by a re-run over the unchanged index",
        "≤ 1 %",
        String.format("%.2f %%", 100 * rerunBytes),
        rerunBytes <= 0.01);
    recoveryRow(md, failover, "TaskManager", 15);
    recoveryRow(md, failover, "JobManager", 30);
    if (!bounds.isEmpty()) {
      md.append("\n### What bounds the targets not met, as measured in this run\n\n");
      bounds.forEach(b -> md.append("- ").append(b).append('\n'));
    }
  }

  private static void row(StringBuilder md, String what, String target, String got, boolean met) {
    md.append("| ")
        .append(what)
        .append(" | ")
        .append(target)
        .append(" | ")
        .append(got)
        .append(" | ")
        .append(met ? "met" : "**NOT met**")
        .append(" |\n");
  }

  private static void recoveryRow(StringBuilder md, String failover, String process, int limit) {
    Double recovery = slowestRecovery(failover, process);
    md.append("| any job: ")
        .append(process)
        .append(" killed mid-stream on the real cluster | 0 lost, 0 duplicated, RUNNING again ≤ ")
        .append(limit)
        .append(" s | ")
        .append(
            recovery == null
                ? "not measured here: run `ClusterFailoverITCase` (part of `./mvnw verify`) | – |\n"
                : String.format(
                    "0 lost, 0 duplicated, slowest %.1f s (last ClusterFailoverITCase run) | %s |\n",
                    recovery, recovery <= limit ? "met" : "**NOT met**"));
  }

  private static final Pattern TO_RUNNING = Pattern.compile("(\\d+\\.\\d) s to RUNNING");

  /** The slowest "to RUNNING" time of a {@code process} kill in ClusterFailoverITCase's table. */
  static Double slowestRecovery(String failover, String process) {
    if (failover == null) {
      return null;
    }
    Double slowest = null;
    for (String line : failover.split("\n")) {
      if (line.contains(process + " `kill -9`")) {
        Matcher m = TO_RUNNING.matcher(line);
        if (m.find()) {
          double s = Double.parseDouble(m.group(1));
          slowest = slowest == null ? s : Math.max(slowest, s);
        }
      }
    }
    return slowest;
  }

  /**
   * The rename with Elasticsearch on a core of its own, the other processes on the rest: whether it
   * is within the target where the job's work does not take Elasticsearch's CPU.
   */
  private static String ownCoreRename(DocumentsBenchmark.Result documents, double ratio) {
    DocumentsBenchmark.FanOut rename = documents.renameOwnCore();
    DocumentsBenchmark.FanOut raw = documents.rawOverwriteOwnCore();
    return String.format(
        " With Elasticsearch on a core of its own and everything else on the other, the rename"
            + " took %.2f× the time of a raw bulk overwriting the same documents on the same cores"
            + " (%,.0f against %,.0f documents/s; Elasticsearch used %.1f and %.1f CPU seconds,"
            + " the job's JVM %.1f of the rename's %.1f): %s",
        ratio,
        rename.documentsPerSecond(),
        raw.documentsPerSecond(),
        rename.cpu().getOrDefault(CpuUse.ELASTICSEARCH, 0.0),
        raw.cpu().getOrDefault(CpuUse.ELASTICSEARCH, 0.0),
        rename.cpu().getOrDefault(CpuUse.THIS_JVM, 0.0),
        rename.seconds(),
        ratio <= 2 ? "within the target there." : "beyond the target there too.");
  }
}
