package dev.weir.bench.scale;

import dev.weir.bench.scale.DocumentsScaleBenchmark.RawLoad;
import dev.weir.bench.scale.DocumentsScaleBenchmark.Result;
import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.MachineLoad;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The documents-at-scale benchmark's results as Markdown. */
public final class DocumentsScaleMarkdown {

  private DocumentsScaleMarkdown() {}

  public static String of(Result r, String command) {
    StringBuilder md =
        BenchReport.header("Declared documents at scale (schemas/documents/orders.json)", command);
    machine(md, r);
    source(md, r);
    sync(md, r);
    if (r.fanOut() != null) {
      fanOut(md, r);
    }
    if (r.backfill() != null) {
      backfill(md, r);
    }
    if (r.fault() != null) {
      fault(md, r);
    }
    md.append("## How long each step took\n\n| step | seconds |\n|---|---:|\n");
    r.stepSeconds().forEach((step, s) -> md.append(f("| %s | %.0f |%n", step, s)));
    return md.toString();
  }

  /**
   * How busy the machine was: its load average, and the share of its cores the processes measured
   * used against the share every process used.
   */
  private static void machine(StringBuilder md, Result r) {
    MachineLoad.Summary load = r.load();
    int cores = Runtime.getRuntime().availableProcessors();
    double all = load.busyShare(cores);
    double ours = CpuUse.total(r.measuredCpu()) / (load.seconds() * cores);
    md.append(
        f(
            "the machine's load average %.1f at the cluster's start and up to %.1f during the run."
                + " Over the %.0f s from the cluster's start to the end the cores were %.0f %% busy:"
                + " %.0f %% the processes measured (the stack's services, the cluster's JVMs, the"
                + " benchmark's JVM), **%.0f %% other work on the machine**%s.%n%n",
            load.loadAtStart(),
            load.loadHighest(),
            load.seconds(),
            100 * all,
            100 * ours,
            100 * Math.max(0, all - ours),
            all - ours > 0.1
                ? " (the absolute rates are disturbed by it; the ratios compare sides measured one"
                    + " after the other under the same kind of load)"
                : ""));
  }

  private static void source(StringBuilder md, Result r) {
    md.append("## The store\n\n");
    md.append(
        f(
            "Generated in PostgreSQL (`INSERT … SELECT` over `generate_series`) in %.1f s: %,d rows,"
                + " %s with their indexes. One document per order: the order, its customer, its"
                + " lines, each line's product with its brand and its category path (3 levels)."
                + " The hot brand is held by every tenth order.%n%n| table | rows |%n|---|---:|%n",
            r.source().seconds(), r.source().totalRows(), bytes(r.source().bytes())));
    r.source().rows().forEach((t, n) -> md.append(f("| %s | %,d |%n", t, n)));
    md.append(
        f(
            "%nDocuments: %,d, %s of bulk bodies with their actions (%,d B a document).%n%n",
            r.raw().documents(),
            bytes(r.raw().bytes()),
            r.raw().bytes() / Math.max(1, r.raw().documents())));
  }

  private static void sync(StringBuilder md, Result r) {
    ScaleSync.Result s = r.sync();
    RawLoad raw = r.raw();
    md.append("## The initial sync, from an empty start\n\n");
    md.append(
        "cdc-catalog (parallelism 1) and search-index (parallelism "
            + r.options().parallelism()
            + ") submitted to the cluster (a JobManager and "
            + ScaleCluster.TASK_MANAGERS
            + " TaskManagers, each its own JVM; "
            + ScaleCluster.CONFIGURATION
            + ") with fresh topics, slot, copy database and index; timed until the last index"
            + " operation of the sync was applied (every document searchable, and no operation for"
            + " 20 s after it: a document is counted from its first version, and one written"
            + " before the rows of its children reached the job is written again as they do)."
            + " The raw bulk sends the same documents (read from"
            + " the copy the job wrote, with their versions; from a file of ready bulk bodies) into a"
            + " fresh index with the job's mapping, one loader per core, timed until a search counts"
            + " every one.\n\n");
    md.append("| | documents | seconds | documents/s |\n|---|---:|---:|---:|\n");
    md.append(
        f(
            "| weir: cdc-catalog → search-index, from both jobs running | %,d | %.1f | %,.0f |%n",
            s.documents(), s.seconds() - s.indexRunningSeconds(), s.documentsPerSecondRunning()));
    md.append(
        f(
            "| weir, from the first submission (the jobs' start-up too) | %,d | %.1f | %,.0f |%n",
            s.documents(), s.seconds(), s.documentsPerSecond()));
    md.append(
        f(
            "| raw bulk of the same documents (last answer %.1f s) | %,d | %.1f | %,.0f |%n",
            raw.sendSeconds(), raw.documents(), raw.seconds(), raw.documentsPerSecond()));
    double ratio = r.syncOverRaw();
    md.append(
        f(
            "%n- weir / raw bulk: **%.2f** from both jobs running (target ≥ 0.9: %s), %.2f from"
                + " the first submission. weir's side reads the source too (a snapshot of every"
                + " table) and goes through Kafka and the copy, the raw side has its documents"
                + " ready.%n",
            ratio, ratio >= 0.9 ? "met" : "NOT met", r.syncFromSubmissionOverRaw()));
    md.append(
        f(
            "- Jobs running %.1f s after the first submission; the first document searchable after"
                + " **%.1f s**; every document counted after %.1f s, complete after %.1f s.%n",
            s.indexRunningSeconds(),
            s.firstSearchableSeconds(),
            s.searchableSeconds(),
            s.seconds()));
    md.append(
        f(
            "- Index operations: %,d, **%.2f a document** (the raw bulk: 1).%n",
            s.indexOperations(), (double) s.indexOperations() / s.documents()));
    md.append("- Searchable over time (seconds since the first submission): ");
    md.append(
        String.join(
            ", ", s.timeline().stream().map(p -> f("%,.0f at %.0f s", p[1], p[0])).toList()));
    md.append(".\n");
    if (s.verification() != null) {
      md.append("- Against the documents SQL builds from the source: ")
          .append(verified(s))
          .append(".\n");
    }
    md.append("\n### Heap, state and checkpoints\n\n");
    heap(md, s);
    if (!s.heapTop().isEmpty()) {
      md.append("\nWhat search-index's TaskManager held most of at the end (its class histogram): ")
          .append(String.join("; ", s.heapTop()))
          .append(".\n");
    }
    double perRow = (double) s.index().lastStateBytes() / r.source().totalRows();
    md.append(
        f(
            "%n- RocksDB state of search-index (its last checkpoint's full size, taken after the"
                + " sync): %s, **%,.0f B per source row** (%,d rows); the TaskManagers' RocksDB"
                + " working files: %s.%n",
            bytes(s.index().lastStateBytes()),
            perRow,
            r.source().totalRows(),
            bytes(s.rocksDbLocalBytes())));
    md.append(
        f(
            "- The copy table: %s, **%.2f×** the source's tables (%s); the index: %s (%,d B a"
                + " document).%n",
            bytes(s.copyBytes()),
            (double) s.copyBytes() / r.source().bytes(),
            bytes(r.source().bytes()),
            bytes(s.indexBytes()),
            s.indexBytes() / Math.max(1, s.documents())));
    md.append(
        "\n| job | checkpoints | failed | longest (s) | timeout (s) | largest full size | largest upload |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|\n");
    checkpoints(md, "cdc-catalog", s.capture());
    checkpoints(md, "search-index", s.index());
    md.append(
        f(
            "%n- No checkpoint failed or ran past its timeout once the jobs ran every task: %s.%n",
            s.capture().failed() + s.index().failed() == 0
                    && Math.max(s.capture().maxDurationMs(), s.index().maxDurationMs())
                        < Math.min(s.capture().timeoutMs(), s.index().timeoutMs())
                ? "met"
                : "NOT met"));
    md.append(
        "- search-index's checkpoints during the sync (s since the first submission: duration s, full size, upload): ");
    md.append(
        String.join(
            "; ",
            s.index().history().stream()
                .map(
                    c ->
                        f(
                            "%.0f: %.1f, %s, %s",
                            c[0], c[1] / 1e3, bytes((long) c[2]), bytes((long) c[3])))
                .toList()));
    md.append(".\n\n");
    cpu(md, s.cpuRunning(), s.documents(), raw);
  }

  private static void heap(StringBuilder md, ScaleSync.Result s) {
    md.append(
        "Each TaskManager's heap: the most it held right after a collection during the sync (its GC"
            + " log), and what a full collection left halfway and at the end (live objects):\n\n"
            + "| TaskManager | jobs | heap after a collection, highest (MB) | heap size then (MB) |"
            + " live halfway (MB) | live at the end (MB) |\n|---|---|---:|---:|---:|---:|\n");
    for (Map.Entry<String, List<String>> tm : s.taskManagers().entrySet()) {
      long[] after = s.heapAfterGc().getOrDefault(tm.getKey(), new long[] {-1, -1});
      long[] live = s.liveHeap().getOrDefault(tm.getKey(), new long[] {-1, -1});
      md.append(
          f(
              "| %s | %s | %s | %s | %s | %s |%n",
              tm.getKey(),
              String.join(", ", tm.getValue()),
              mb(after[0]),
              mb(after[1]),
              mb(live[0]),
              mb(live[1])));
    }
  }

  private static void checkpoints(StringBuilder md, String job, ScaleSync.Checkpoints c) {
    md.append(
        f(
            "| %s | %,d | %,d | %.1f | %.0f | %s | %s |%n",
            job,
            c.completed(),
            c.failed(),
            c.maxDurationMs() / 1e3,
            c.timeoutMs() / 1e3,
            bytes(c.maxStateBytes()),
            bytes(c.maxUploadedBytes())));
  }

  private static void cpu(StringBuilder md, Map<String, Double> weir, long documents, RawLoad raw) {
    md.append(
        "CPU seconds each process used (Linux /proc), per 1,000 documents: weir's sync from both"
            + " jobs running until it was done (its 20 s wait without an index operation"
            + " included), the raw bulk's load.\n\n");
    cpuTable(md, weir, documents, raw);
    md.append(
        f(
            "%n- When the cores are all busy, weir / raw can be at most about the raw side's CPU per"
                + " document over weir's: %.2f here.%n%n",
            (CpuUse.total(raw.cpu()) / raw.documents()) / (CpuUse.total(weir) / documents)));
  }

  /** Each process's CPU seconds per 1,000 documents, weir's beside the raw bulk's, and the sums. */
  private static void cpuTable(
      StringBuilder md, Map<String, Double> weir, long documents, RawLoad raw) {
    md.append("| process | weir | raw bulk |\n|---|---:|---:|\n");
    Set<String> processes = new LinkedHashSet<>(weir.keySet());
    processes.addAll(raw.cpu().keySet());
    for (String p : processes) {
      md.append(
          f(
              "| %s | %.3f | %.3f |%n",
              p,
              weir.getOrDefault(p, 0.0) * 1000 / documents,
              raw.cpu().getOrDefault(p, 0.0) * 1000 / raw.documents()));
    }
    md.append(
        f(
            "| **all** | **%.3f** | **%.3f** |%n",
            CpuUse.total(weir) * 1000 / documents,
            CpuUse.total(raw.cpu()) * 1000 / raw.documents()));
  }

  private static void fanOut(StringBuilder md, Result r) {
    ScaleFanOut.Result f = r.fanOut();
    double rawSeconds = f.documents() / r.raw().documentsPerSecond();
    double ratio = f.seconds() / rawSeconds;
    md.append("## A brand shared by many documents, renamed while orders change\n\n");
    md.append(
        f(
            "With both jobs running after the sync, %,d order changes a second (%s; each an UPDATE"
                + " of one order holding no product of the hot brand; %,d sent in all), and after a"
                + " warm-up the hot brand renamed: timed from its commit until a search finds the"
                + " new name in all %,d documents that hold it. Every tenth order change is followed"
                + " from its commit until a search returns it (polled every 200 ms).%n%n",
            f.changeRate(),
            f.changeRate() == r.options().changeRate()
                ? "as asked"
                : f(
                    "%,d asked, held to half the rate the sync indexed at: above the job's rate the"
                        + " changes' latency measures their own backlog",
                    r.options().changeRate()),
            f.changesSent(),
            f.documents()));
    md.append(
        f(
            "- The rename reached every document in **%.1f s** (%,.0f documents/s), %.2f× the time"
                + " a raw bulk of as many documents takes (%,.0f/s, above): **%s** (target ≤ 2×).%n",
            f.seconds(),
            f.documentsPerSecond(),
            ratio,
            r.raw().documentsPerSecond(),
            ratio <= 2 ? "met" : "NOT met"));
    double renameCpu = CpuUse.total(f.cpu()) / f.documents() * 1000;
    double rawCpu = CpuUse.total(r.raw().cpu()) / r.raw().documents() * 1000;
    md.append(
        f(
            "- CPU seconds per 1,000 of its documents from the rename's commit until every document"
                + " showed it (the other order changes' share included, by process below): **%.3f**,"
                + " against %.3f for the raw bulk: with the cores all busy, the rename can take at"
                + " best about %.1f× the raw bulk's time.%n",
            renameCpu, rawCpu, renameCpu / rawCpu));
    md.append(
        f(
            "- The order changes until searchable: before the rename p50 %,d ms, p99 %,d ms (%,d"
                + " followed); during it p50 %,d ms, **p99 %,d ms** (%,d followed). Bound: the"
                + " rename's time plus the p99 before it, %,d ms (a change waits at most for the"
                + " rename's documents ahead of it in the job's queues): %s.%n%n",
            f.before().visibleP50(),
            f.before().visibleP99(),
            f.before().events(),
            f.during().visibleP50(),
            f.during().visibleP99(),
            f.during().events(),
            f.boundMs(),
            f.during().visibleP99() <= f.boundMs() ? "met" : "NOT met"));
    cpuTable(md, f.cpu(), f.documents(), r.raw());
    md.append("\n");
  }

  private static void backfill(StringBuilder md, Result r) {
    ScaleBackfill.Result b = r.backfill();
    RawLoad raw = r.raw();
    md.append("## backfill of every document\n\n");
    md.append(
        f(
            "`weir backfill` (parallelism %d, a MiniCluster in the benchmark's JVM) from the copy"
                + " the sync wrote into an empty index, against the raw bulk above.%n%n"
                + "| run | seconds | documents/s | sent | skipped as unchanged | bytes sent | steps |%n"
                + "|---|---:|---:|---:|---:|---:|---|%n",
            b.parallelism()));
    run(md, "whole run, empty index", b.whole());
    run(md, "resumed after the kill", b.resumed());
    run(md, "again, over the unchanged index", b.again());
    double ratio = b.whole().documentsPerSecond() / raw.documentsPerSecond();
    double bound =
        (CpuUse.total(raw.cpu()) / raw.documents())
            / (CpuUse.total(b.whole().cpu()) / b.documents());
    md.append(
        f(
            "%n- The whole run / the raw bulk: **%.2f** (target ≥ 0.9, or the CPU ceiling of this"
                + " run: the raw side's CPU per document over the backfill's, %.2f): %s.%n",
            ratio, bound, ratio >= 0.9 || ratio >= bound * 0.95 ? "met" : "NOT met"));
    md.append(
        f(
            "- Killed (SIGKILL, its own JVM) after %.1f s with %,d of %,d documents indexed; the"
                + " next run sent %,d and skipped %,d already there.%n",
            b.killedAfterSeconds(),
            b.indexedAtKill(),
            b.documents(),
            b.resumed().summary().sent(),
            b.resumed().summary().skippedUnchanged()));
    md.append(
        f(
            "- Over the unchanged index a run sent **%.2f %%** of the whole run's bytes (target ≤ 1"
                + " %%: %s).%n%n",
            b.againBytesPercent(), b.againBytesPercent() <= 1 ? "met" : "NOT met"));
  }

  private static void run(StringBuilder md, String name, ScaleBackfill.Run run) {
    var s = run.summary();
    md.append(
        f(
            "| %s | %.1f | %,.0f | %,d | %,d | %s | %s |%n",
            name,
            run.seconds(),
            run.documentsPerSecond(),
            s.sent(),
            s.skippedUnchanged(),
            bytes(s.bytesSent()),
            s.stepsLine()));
  }

  private static void fault(StringBuilder md, Result r) {
    ScaleSync.Result k = r.fault();
    ScaleSync.Restart restart = k.restart();
    md.append("## A TaskManager killed halfway through the initial sync\n\n");
    md.append(
        "The sync again from an empty start (its own topics, slot, copy and index); halfway through"
            + " it by the first sync's time the TaskManager running search-index is killed (SIGKILL) and a"
            + " replacement started, as Kubernetes would.\n\n");
    if (restart != null) {
      md.append(
          f(
              "- Killed taskmanager-%d at %.1f s since the first submission (%,d documents"
                  + " searchable); search-index ran again at %.1f s, restored from checkpoint %d"
                  + " (triggered at %.1f s).%n",
              restart.taskManager(),
              restart.killedAtSeconds(),
              restart.searchableAtKill(),
              restart.runningAgainSeconds(),
              restart.checkpointId(),
              restart.checkpointTriggeredAtSeconds()));
    }
    double lost =
        (k.seconds() - k.indexRunningSeconds())
            - (r.sync().seconds() - r.sync().indexRunningSeconds());
    md.append(
        f(
            "- Every document searchable %.1f s after both jobs ran, against %.1f s without the"
                + " kill: **%.1f s lost** (from the first submission: %.1f s against %.1f s; the"
                + " jobs' start-up varies with the machine's load).%n",
            k.seconds() - k.indexRunningSeconds(),
            r.sync().seconds() - r.sync().indexRunningSeconds(),
            lost,
            k.seconds(),
            r.sync().seconds()));
    if (restart != null) {
      double down = restart.runningAgainSeconds() - restart.killedAtSeconds();
      double redone = restart.killedAtSeconds() - restart.checkpointTriggeredAtSeconds();
      md.append(
          f(
              "- The kill's cost within this run: %.1f s from the kill until search-index ran"
                  + " again, and %.1f s of work done again (from the checkpoint it restored to the"
                  + " kill): %.1f s.%s%n",
              down,
              redone,
              down + redone,
              lost < down + redone
                  ? " The difference between the two syncs is smaller than that: the run without"
                      + " the kill went slower (the machine's other work, the cores' speed), so it"
                      + " measures the machine, not the kill."
                  : ""));
    }
    if (k.verification() != null) {
      md.append("- Against the documents SQL builds: ").append(verified(k)).append(".\n\n");
    }
  }

  private static String verified(ScaleSync.Result s) {
    ScaleVerification.Result v = s.verification();
    return f(
            "%,d documents compared, %,d missing, %,d extra, %,d differing, %,d at another version"
                + " than the copy's: **%s**",
            v.documents(),
            v.missing(),
            v.extra(),
            v.differing(),
            v.versionsOff(),
            v.exact() ? "every document equal" : "NOT equal")
        + (v.examples().isEmpty() ? "" : " (" + String.join("; ", v.examples()) + ")");
  }

  private static String mb(long mb) {
    return mb < 0 ? "–" : f("%,d", mb);
  }

  static String bytes(long bytes) {
    if (bytes < 0) {
      return "?";
    }
    if (bytes >= 1L << 30) {
      return f("%.2f GB", bytes / (double) (1L << 30));
    }
    if (bytes >= 1L << 20) {
      return f("%.1f MB", bytes / (double) (1L << 20));
    }
    return f("%,d kB", bytes / 1024);
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
