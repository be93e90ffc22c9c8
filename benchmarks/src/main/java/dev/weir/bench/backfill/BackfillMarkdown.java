package dev.weir.bench.backfill;

import dev.weir.backfill.Backfill;
import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.CpuUse;
import java.util.List;
import java.util.Map;

/** backfill's results ({@link BackfillBenchmark}) as Markdown. */
public final class BackfillMarkdown {

  private BackfillMarkdown() {}

  /** The results as Markdown, with the command that made them. */
  public static String of(BackfillBenchmark.Result r, String command) {
    StringBuilder md = BenchReport.header("backfill benchmark", command);
    md.append("the local stack (PostgreSQL with fsync off, one Elasticsearch node). Input: ")
        .append(String.format("%,d", r.documents()))
        .append(
            " products documents (descriptions of ~6 kB) in `product_document`, written by the"
                + " job's copy writer. Parallelism ")
        .append(r.parallelism())
        .append(" for the backfill, as many loaders for the raw bulk. ")
        .append(
            r.rounds() == 1
                ? "1 round of the raw bulk and the backfill into an empty index in turn.\n\n"
                : r.rounds()
                    + " rounds of the raw bulk and the backfill into an empty index in turn; the"
                    + " best of each side is shown.\n\n");
    md.append("## Documents per second\n\n");
    md.append("| | documents | seconds | documents/s |\n|---|---:|---:|---:|\n");
    row(
        md,
        "raw bulk of the same documents (in memory, batches of 1000)",
        r.documents(),
        r.rawSeconds());
    row(
        md,
        "weir backfill, copy pass (read the copy, compare, bulk-write)",
        r.documents(),
        r.first().copyPassSeconds());
    row(
        md,
        "weir backfill, whole run (copy pass, catch-up pass, deletes check)",
        r.documents(),
        r.first().summary().elapsed().toMillis() / 1e3);
    double copyRatio = r.first().copyPassDocsPerSecond() / r.rawDocsPerSecond();
    double wholeRatio = r.first().docsPerSecond() / r.rawDocsPerSecond();
    md.append(
        String.format(
            "%n- the whole run / raw bulk: **%s** (target ≥ 0.9: %s); the copy pass alone: %.2f.%n",
            BenchReport.shown(wholeRatio, 0.9, ""),
            wholeRatio >= 0.9 ? "met" : "NOT met",
            copyRatio));
    md.append(
        "- The copy pass is timed from the job's submission (a MiniCluster start included) until its"
            + " last bulk request is answered; the raw bulk from its first request until its last is"
            + " answered, with the documents already in memory. Both are counted again afterwards. The"
            + " whole run adds the index's refresh, the catch-up pass (the documents written to the"
            + " copy since the copy pass began, here none: nothing streams during the benchmark, so"
            + " no second job runs; with streaming it is a bounded job over those documents only) and"
            + " the deletes check, which reads every id the target holds.\n");
    md.append("- The whole run's steps: ").append(r.first().summary().stepsLine()).append(".\n\n");
    md.append(cpuTable(r));
    md.append("## A second run over the unchanged index\n\n");
    md.append(
        "| | sent | skipped as unchanged | bytes sent | seconds |\n|---|---:|---:|---:|---:|\n");
    for (String name : List.of("first run", "second run")) {
      Backfill.Summary s = name.equals("first run") ? r.first().summary() : r.second().summary();
      md.append(
          String.format(
              "| %s | %,d | %,d | %,d | %.1f |%n",
              name, s.sent(), s.skippedUnchanged(), s.bytesSent(), s.elapsed().toMillis() / 1e3));
    }
    double share =
        100.0 * r.second().summary().bytesSent() / Math.max(1, r.first().summary().bytesSent());
    md.append(
        String.format(
            "%n- the second run sent **%.2f%%** of the first run's bytes (target ≤ 1%%: %s).%n",
            share, share <= 1 ? "met" : "NOT met"));
    return md.toString();
  }

  /**
   * CPU seconds by process on each side (the raw bulk's best round, the backfill's whole first
   * run), and the ratio those allow when the cores are busy: where the backfill's extra work goes.
   */
  private static String cpuTable(BackfillBenchmark.Result r) {
    Map<String, Double> weir = r.first().cpu();
    Map<String, Double> raw = r.rawCpu();
    if (Double.isNaN(r.cpuBound())) {
      return "";
    }
    StringBuilder md =
        new StringBuilder(
            "## Where the cores went\n\nCPU seconds each process used: the raw bulk's best round"
                + " (its first request to its last answer), the backfill's whole first run (Linux"
                + " /proc; a service's process tree). The benchmark JVM runs the backfill's job"
                + " (MiniCluster) on weir's side, the bulk loaders on the raw side.\n\n"
                + "| process | weir backfill | raw bulk |\n|---|---:|---:|\n");
    BenchReport.appendCpuRows(md, weir, raw);
    double weirTotal = CpuUse.total(weir);
    double rawTotal = CpuUse.total(raw);
    double weirSeconds = r.first().summary().elapsed().toMillis() / 1e3;
    int cores = Runtime.getRuntime().availableProcessors();
    md.append(String.format("| **all** | **%.1f** | **%.1f** |%n", weirTotal, rawTotal));
    md.append(
        String.format(
            "| cores × seconds available | %.1f | %.1f |%n%n",
            cores * weirSeconds, cores * r.rawSeconds()));
    md.append(
        String.format(
            "- Per 1,000 documents: %.2f CPU s on weir's side, %.2f on the raw bulk's. When the"
                + " cores are all busy, the whole run / raw bulk can be at most about the raw"
                + " side's CPU over weir's: %.2f here. weir's extra is reading the copy"
                + " (PostgreSQL, the job) and the job's start.%n%n",
            weirTotal * 1000 / r.documents(), rawTotal * 1000 / r.documents(), r.cpuBound()));
    return md.toString();
  }

  private static void row(StringBuilder md, String name, long documents, double seconds) {
    md.append(
        String.format(
            "| %s | %,d | %.1f | %,.0f |%n", name, documents, seconds, documents / seconds));
  }
}
