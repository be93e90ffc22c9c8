package dev.weir.bench.search;

import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.IndexLoad;
import dev.weir.bench.support.IndexWork;
import dev.weir.bench.support.RawBulk;
import dev.weir.bench.support.WalRecords;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/** search-index's results ({@link SearchIndexBenchmark}) as Markdown. */
public final class SearchIndexMarkdown {

  private SearchIndexMarkdown() {}

  /** Where each side's WAL went, by record type, per change (pg_walinspect). */
  private static String walBreakdown(SearchIndexBenchmark.Result r) {
    if (r.weirWrites().records().isEmpty()) {
      return "";
    }
    StringBuilder md =
        new StringBuilder("### Where the WAL goes, per change (pg_walinspect)\n\n")
            .append(
                "| record type | weir: records | weir: bytes | weir: of which page images"
                    + " | naive: records | naive: bytes | naive: of which page images |\n")
            .append("|---|---:|---:|---:|---:|---:|---:|\n");
    Map<String, WalRecords> weir = byType(r.weirWrites());
    Map<String, WalRecords> naive = byType(r.naiveWrites());
    Set<String> types = new LinkedHashSet<>();
    r.weirWrites().records().stream().limit(6).forEach(w -> types.add(w.type()));
    r.naiveWrites().records().stream().limit(4).forEach(w -> types.add(w.type()));
    double weirChanges = r.weirWrites().changes();
    double naiveChanges = r.naiveWrites().changes();
    for (String type : types) {
      WalRecords w = weir.get(type);
      WalRecords n = naive.get(type);
      md.append(
          String.format(
              "| %s | %.2f | %,.0f | %,.0f | %.2f | %,.0f | %,.0f |%n",
              type,
              w == null ? 0 : w.count() / weirChanges,
              w == null ? 0 : w.bytes() / weirChanges,
              w == null ? 0 : w.fullPageImageBytes() / weirChanges,
              n == null ? 0 : n.count() / naiveChanges,
              n == null ? 0 : n.bytes() / naiveChanges,
              n == null ? 0 : n.fullPageImageBytes() / naiveChanges));
    }
    md.append(
        String.format(
            "| all records | | %,.0f | %,.0f | | %,.0f | %,.0f |%n",
            total(r.weirWrites(), WalRecords::bytes) / weirChanges,
            total(r.weirWrites(), WalRecords::fullPageImageBytes) / weirChanges,
            total(r.naiveWrites(), WalRecords::bytes) / naiveChanges,
            total(r.naiveWrites(), WalRecords::fullPageImageBytes) / naiveChanges));
    md.append(
        "\nBytes include full-page images, written for the first change of a page after a checkpoint"
            + " (the first round follows a CHECKPOINT): the rest of weir's bytes are the floor of an"
            + " update of its row on this server, however seldom checkpoints come. The local"
            + " stack's one server has `wal_level = logical` (the captured catalog lives on it), and with"
            + " logical decoding on PostgreSQL logs an updated row's new version whole: weir's row without"
            + " its description, a few hundred bytes. Before updating a row that has an out-of-line (TOAST)"
            + " value PostgreSQL also logs a lock record (`Heap/LOCK`: heap_update lets go of the page"
            + " while it looks at the TOAST values). Those two are the floor of an in-place update here,"
            + " so the ratio to the full-row upsert grows with the size of the large value, not with"
            + " anything weir could leave out.\n\n");
    return md.toString();
  }

  private static long total(CopyWrites writes, ToLongFunction<WalRecords> bytes) {
    return writes.records().stream().mapToLong(bytes).sum();
  }

  private static Map<String, WalRecords> byType(CopyWrites writes) {
    Map<String, WalRecords> byType = new HashMap<>();
    writes.records().forEach(w -> byType.put(w.type(), w));
    return byType;
  }

  /** The results as Markdown, with the command that made them. */
  public static String of(SearchIndexBenchmark.Result r, String command) {
    StringBuilder md = BenchReport.header("search-index benchmark", command);
    md.append(
            "the local stack (PostgreSQL with fsync off, one Elasticsearch node). Input: a catalog of ")
        .append(String.format("%,d", r.products()))
        .append(
            String.format(
                " products (descriptions of ~%,d characters, TOASTed; 50 brands; 52 categories) and a"
                    + " price each, captured by cdc-catalog into Kafka before anything is timed.\n\n",
                r.descriptionChars()));
    md.append("## Price-only changes: what the copy writes\n\n");
    md.append(
        "Rounds of a new price for every product (the first round after a CHECKPOINT). weir's job writes them to `product_document`; the naive side"
            + " upserts the same final rows, every column (`INSERT … ON CONFLICT DO UPDATE SET` all), into a"
            + " table of the same shape seeded with the same rows. WAL is the server's `pg_current_wal_lsn()` difference over"
            + " the step, TOAST tuples are `n_tup_ins` of the table's TOAST table.\n\n");
    md.append(
        "| | changes | WAL bytes | WAL bytes / change | rows updated | TOAST tuples written |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (CopyWrites w : new CopyWrites[] {r.weirWrites(), r.naiveWrites()}) {
      md.append(
          String.format(
              "| %s | %,d | %,d | %,.0f | %,d | %,d |%n",
              w.name(),
              w.changes(),
              w.walBytes(),
              (double) w.walBytes() / w.changes(),
              w.rowsUpdated(),
              w.toast()));
    }
    double walRatio = (double) r.naiveWrites().walBytes() / r.weirWrites().walBytes();
    md.append(
        String.format(
            "%n- **%.0f× less WAL** than the full-row upsert; TOAST tuples written by"
                + " weir: **%d** (target 0: %s). The design's WAL target compares weir with a"
                + " hand-written UPDATE of just the changed columns: `bin/weir bench documents`"
                + " (search-index-documents.md).%n%n",
            walRatio, r.weirWrites().toast(), r.weirWrites().toast() == 0 ? "met" : "NOT met"));
    md.append(walBreakdown(r));
    md.append("## End to end: documents per second\n\n");
    md.append(
        "Two passes, each weir's job then the raw bulk of the documents it indexed. The first job of"
            + " a JVM compiles its code while it runs (the JIT), and a freshly started Elasticsearch"
            + " compiles its own: costs a deployment pays once, in its first minute. The second pass"
            + " runs the job again in the same JVM, on a fresh copy database and a fresh index, from"
            + " the start of the topics (its consumer group deleted), with Elasticsearch warmed by the"
            + " first pass, as it is for each raw bulk, which follows a weir run. The first pass"
            + " shows what a new deployment's first load looks like. The target is judged with"
            + " Elasticsearch on a core of its own, at steady state (below). Each raw bulk is"
            + " loaded "
            + RawBulk.PASSES
            + " times, each pass into a fresh index once Elasticsearch runs no merge (one pass on a"
            + " shared machine is noisy): its row, its ratios and its CPU and index stats below are"
            + " the median pass by documents/s after warm-up (over the whole load where a pass"
            + " was too short to measure it), the whole loads' range beside it. With"
            + " Elasticsearch on a core of its own the sides run in "
            + SearchIndexBenchmark.SEPARATE_CORES_PAIRS
            + " pairs, each weir's job on a fresh copy database and index and right after it one"
            + " raw bulk of the documents it indexed, and the pair with the median ratio is"
            + " compared.\n\n");
    md.append(
        "| pass | | documents | seconds | documents/s | after warm-up: documents/s |\n"
            + "|---|---|---:|---:|---:|---:|\n");
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {"first", r.first().weir()});
    rows.add(new Object[] {"first", r.first().raw()});
    rows.add(new Object[] {"second", r.weir()});
    rows.add(new Object[] {"second", r.raw()});
    if (r.separateCores() != null) {
      String label =
          r.separateCores().pairRatios().isEmpty()
              ? "separate cores"
              : "separate cores, the median pair";
      rows.add(new Object[] {label, r.separateCores().weir()});
      rows.add(new Object[] {label, r.separateCores().raw()});
    }
    for (Object[] row : rows) {
      IndexLoad l = (IndexLoad) row[1];
      md.append(
          String.format(
              "| %s | %s | %,d | %.1f | %,.0f | %s |%n",
              row[0],
              l.passRates().isEmpty() ? l.name() : l.name() + ": " + l.passesSummary(),
              l.documents(),
              l.seconds(),
              l.documentsPerSecond(),
              l.steadyMeasured() ? String.format("%,.0f", l.steadyDocumentsPerSecond()) : "—"));
    }
    double ratio = r.ratio();
    md.append(
        String.format(
            "%n- weir end to end / raw bulk (%s), second pass, shared cores: **%.2f** (reported,"
                + " not judged: bounded by Elasticsearch's share of the cores, below). First pass:"
                + " %.2f.%n",
            r.raw().passesSummary(), ratio, r.first().ratio()));
    if (r.separateCores() != null) {
      md.append(
          String.format(
              "- With Elasticsearch on a core of its own and the rest (weir's job or the bulk client,"
                  + " PostgreSQL, Kafka) on the other%s, on both sides (`taskset`; after the price"
                  + " changes; %s): %.2f over the whole load, %s after warm-up. That is"
                  + " where the job's work no longer takes Elasticsearch's CPU, as with"
                  + " Elasticsearch on nodes of its own.%n",
              Runtime.getRuntime().availableProcessors() > 2 ? "s" : "",
              r.separateCores().pairRatios().isEmpty()
                  ? "weir's side " + r.separateCores().weir().passesSummary()
                  : r.separateCores().pairsSummary(),
              r.separateCores().ratio(),
              r.separateCores().steadyRatio().map(v -> String.format("%.2f", v)).orElse("—")));
    }
    md.append(
        String.format(
            "- **Judged (%s): %s** (target ≥ 0.9: %s). %s. The"
                + " design judges throughput at steady state;"
                + " the whole load includes the job's first seconds (JIT compilation of a fresh"
                + " job) and is shown beside it.%n",
            r.judgedOn(),
            BenchReport.shown(r.judgedRatio(), 0.9, ""),
            r.judgedRatio() >= 0.9 ? "met" : "NOT met",
            r.judgedPass().pairRatios().isEmpty()
                ? "The raw bulk's side is its " + r.judgedPass().raw().passesSummary()
                : "It is "
                    + r.judgedPass().pairsSummary()
                    + ": each pair times the raw bulk right after weir's side, so a drift of the"
                    + " host's speed over the step's minutes falls on both sides of a ratio"));
    md.append(
        r.steadyRatio()
            .map(
                steady ->
                    String.format(
                        "- After warm-up (from the moment Elasticsearch had applied the first fifth"
                            + " of the documents until it had applied the last, by its indexing"
                            + " stats polled every 100 ms on both sides: a search's count moves only"
                            + " at refreshes, which took seconds under this load), second pass,"
                            + " shared cores: %.2f.%n",
                        steady))
            .orElse(
                String.format(
                    "- After warm-up: not measured, a side took under %.0f s after its first"
                        + " fifth (a bulk takes Elasticsearch up to a second).%n",
                    IndexLoad.MIN_STEADY_SECONDS)));
    md.append(
        String.format(
            "- weir is timed from the moment its job is RUNNING (tasks deploying, Kafka reads, the join, the"
                + " copy in PostgreSQL, every document in Elasticsearch) until the alias counts every"
                + " product; the raw bulk from its first request until the index counts every document."
                + " Before RUNNING, the job took %.1f s to start (migrations, the alias, the MiniCluster,"
                + " scheduling): once per deployment, like the raw side's client, so in neither time."
                + " The raw bulk sends the documents weir indexed (read back from its index), with their"
                + " versions. Each side starts once Elasticsearch runs no merge (the load or the price"
                + " changes before it leave segments to merge).%n",
            r.jobStartSeconds()));
    md.append(cpuTable(r));
    if (r.separateCores() != null) {
      md.append(separateCoresTable(r.separateCores()));
    }
    md.append(elasticsearchTable(r));
    return md.toString();
  }

  /**
   * The judged pass by core: how busy Elasticsearch's core and the other were in each side's timed
   * window. Where weir's side keeps Elasticsearch's core less busy than the raw bulk does, this
   * says whether its own core was full (its work bounds it) or not (it waits between bulks).
   */
  private static String separateCoresTable(Pass p) {
    if (p.weir().cpu().isEmpty() || p.raw().cpu().getOrDefault(CpuUse.ELASTICSEARCH, 0.0) <= 0) {
      return "";
    }
    boolean steady = p.steadyRatio().isPresent();
    Stretch weirStretch = Stretch.of(p.weir(), steady);
    Stretch rawStretch = Stretch.of(p.raw(), steady);
    Map<String, Double> weir = weirStretch.cpu();
    Map<String, Double> raw = rawStretch.cpu();
    int others = Runtime.getRuntime().availableProcessors() - 1;
    String plural = others > 1 ? "s" : "";
    StringBuilder md =
        new StringBuilder(
            String.format(
                "%n### The judged pass, by core%n%nCPU seconds each process used in each side's"
                    + " %s, with Elasticsearch on core 0 and the rest on the other%s (%s), and"
                    + " how busy each side kept the cores: CPU seconds over the window's"
                    + " seconds.%n%n"
                    + "| process | weir | raw bulk |%n|---|---:|---:|%n",
                steady ? "stretch after warm-up (the judged one)" : "whole load",
                plural,
                p.pairRatios().isEmpty() ? "each side's median pass" : "the median pair"));
    BenchReport.appendCpuRows(md, weir, raw);
    Busy weirBusy = weirStretch.busy(others);
    Busy rawBusy = rawStretch.busy(others);
    md.append(
        String.format(
            "| Elasticsearch's core busy | %.0f %% | %.0f %% |%n",
            100 * weirBusy.elasticsearch(), 100 * rawBusy.elasticsearch()));
    md.append(
        String.format(
            "| the other core%s busy | %.0f %% | %.0f %% |%n",
            plural, 100 * weirBusy.rest(), 100 * rawBusy.rest()));
    if (steady) {
      Busy weirWhole = Stretch.of(p.weir(), false).busy(others);
      Busy rawWhole = Stretch.of(p.raw(), false).busy(others);
      md.append(
          String.format(
              "| over the whole load: Elasticsearch's core busy | %.0f %% | %.0f %% |%n"
                  + "| over the whole load: the other core%s busy | %.0f %% | %.0f %% |%n",
              100 * weirWhole.elasticsearch(),
              100 * rawWhole.elasticsearch(),
              plural,
              100 * weirWhole.rest(),
              100 * rawWhole.rest()));
    }
    md.append(
        String.format(
            "%n- Per 1,000 documents Elasticsearch used %.2f CPU s on weir's side, %.2f on the raw"
                + " bulk's; weir's side kept its core %.0f %% as busy as the raw bulk did, while"
                + " weir's own work (job, PostgreSQL, Kafka) kept the other core%s %.0f %% busy.%n",
            weir.getOrDefault(CpuUse.ELASTICSEARCH, 0.0) * 1000 / weirStretch.documents(),
            raw.getOrDefault(CpuUse.ELASTICSEARCH, 0.0) * 1000 / rawStretch.documents(),
            100 * weirBusy.elasticsearch() / rawBusy.elasticsearch(),
            plural,
            100 * weirBusy.rest()));
    if (steady) {
      md.append(
          "- Over the whole load weir's side starts by reading: the join holds a document until"
              + " every table's topic has been read past the change that made it, and a"
              + " snapshot's rows carry no commit time (Debezium's source.ts_ms is 0), so the"
              + " first documents wait until the snapshot is read, and Elasticsearch with them.\n");
    }
    return md.toString();
  }

  /** A stretch of a load: after its warm-up, or the whole of it. */
  private record Stretch(Map<String, Double> cpu, double seconds, long documents) {
    static Stretch of(IndexLoad load, boolean afterWarmUp) {
      return afterWarmUp
          ? new Stretch(load.steadyCpu(), load.steadySeconds(), load.steadyDocuments())
          : new Stretch(load.cpu(), load.seconds(), load.documents());
    }

    /** How busy it kept Elasticsearch's core and the {@code otherCores}. */
    Busy busy(int otherCores) {
      double es = cpu.getOrDefault(CpuUse.ELASTICSEARCH, 0.0);
      return new Busy(es / seconds, (CpuUse.total(cpu) - es) / (otherCores * seconds));
    }
  }

  private record Busy(double elasticsearch, double rest) {}

  /** What Elasticsearch did on each side of the second pass, from the indices' stats. */
  private static String elasticsearchTable(SearchIndexBenchmark.Result r) {
    IndexLoad weir = r.weir();
    IndexLoad raw = r.raw();
    if (weir.settled() == null || raw.settled() == null) {
      return "";
    }
    StringBuilder md =
        new StringBuilder(
            String.format(
                "%n### What Elasticsearch did%n%nEach side's index in the second pass (the raw"
                    + " bulk's median pass), from its index stats at the end of the timed window"
                    + " and once no merge ran any more (awaited after it). Times are the time Elasticsearch's threads spent, not"
                    + " CPU.%n%n| | weir | raw bulk |%n|---|---:|---:|%n"));
    elasticsearchRow(md, "index operations", weir, raw, w -> String.format("%,d", w.indexed()));
    elasticsearchRow(md, "… of which failed", weir, raw, w -> String.format("%,d", w.failed()));
    elasticsearchRow(md, "bulk requests", weir, raw, w -> String.format("%,d", w.bulkRequests()));
    elasticsearchRow(
        md, "indexing, s", weir, raw, w -> String.format("%.1f", w.indexMillis() / 1e3));
    elasticsearchRow(
        md,
        "refreshes (s)",
        weir,
        raw,
        w -> String.format("%,d (%.1f)", w.refreshes(), w.refreshMillis() / 1e3));
    elasticsearchRow(md, "merges done in the window (s)", weir, raw, SearchIndexMarkdown::merges);
    md.append(
        String.format(
            "| merges done until none ran (s) | %s | %s |%n",
            merges(weir.settled().work()), merges(raw.settled().work())));
    elasticsearchRow(
        md,
        "searches (the count polled every 100 ms)",
        weir,
        raw,
        w -> String.format("%,d", w.queries()));
    md.append(
        String.format(
            "| Elasticsearch CPU s in the window | %.1f | %.1f |%n",
            weir.cpu().getOrDefault(CpuUse.ELASTICSEARCH, 0.0),
            raw.cpu().getOrDefault(CpuUse.ELASTICSEARCH, 0.0)));
    md.append(
        String.format(
            "| Elasticsearch CPU s until no merge ran | %.1f | %.1f |%n",
            weir.settled().elasticsearchCpuSeconds(), raw.settled().elasticsearchCpuSeconds()));
    md.append(
        String.format(
            "%n- Elasticsearch's CPU per 1,000 documents, counted until no merge ran (so that"
                + " merges a side left behind are in its count): %.2f s for weir, %.2f s for the raw"
                + " bulk.%n",
            weir.settled().elasticsearchCpuSeconds() * 1000 / weir.documents(),
            raw.settled().elasticsearchCpuSeconds() * 1000 / raw.documents()));
    return md.toString();
  }

  private static void elasticsearchRow(
      StringBuilder md,
      String what,
      IndexLoad weir,
      IndexLoad raw,
      Function<IndexWork, String> value) {
    md.append(
        String.format(
            "| %s | %s | %s |%n",
            what, value.apply(weir.elasticsearch()), value.apply(raw.elasticsearch())));
  }

  private static String merges(IndexWork w) {
    return String.format("%,d (%.1f)", w.merges(), w.mergeMillis() / 1e3);
  }

  /** Where each side's seconds went, in CPU seconds by process (none where /proc is missing). */
  private static String cpuTable(SearchIndexBenchmark.Result r) {
    Map<String, Double> weir = r.weir().cpu();
    Map<String, Double> raw = r.raw().cpu();
    if (weir.isEmpty() || raw.isEmpty()) {
      return "";
    }
    int cores = Runtime.getRuntime().availableProcessors();
    StringBuilder md =
        new StringBuilder(
            String.format(
                "%n### Where the cores went%n%nCPU seconds each process used during each side's"
                    + " timed window of the second pass, the raw bulk's in its median pass (Linux"
                    + " /proc; a service's process tree). The benchmark JVM is weir's job"
                    + " (MiniCluster) on weir's side, the bulk client on the raw side.%n%n"
                    + "| process | weir | raw bulk |%n|---|---:|---:|%n"));
    BenchReport.appendCpuRows(md, weir, raw);
    double weirTotal = CpuUse.total(weir);
    double rawTotal = CpuUse.total(raw);
    md.append(String.format("| **all** | **%.1f** | **%.1f** |%n", weirTotal, rawTotal));
    md.append(
        String.format(
            "| cores × seconds available | %.1f | %.1f |%n",
            cores * r.weir().seconds(), cores * r.raw().seconds()));
    double elasticsearch = raw.getOrDefault(CpuUse.ELASTICSEARCH, 0.0);
    double weirOwn = weirTotal - weir.getOrDefault(CpuUse.ELASTICSEARCH, 0.0);
    md.append(
        String.format(
            "%n- Per 1,000 documents: Elasticsearch %.2f CPU s on the raw side, %.2f on weir's;"
                + " weir's own work (job, PostgreSQL, Kafka) %.2f. When the cores are all busy,"
                + " weir / raw can be at most about the raw side's CPU over weir's: %.2f here.%n",
            elasticsearch * 1000 / r.raw().documents(),
            weir.getOrDefault(CpuUse.ELASTICSEARCH, 0.0) * 1000 / r.weir().documents(),
            weirOwn * 1000 / r.weir().documents(),
            (rawTotal / r.raw().documents()) / (weirTotal / r.weir().documents())));
    double jit = weir.getOrDefault(CpuUse.JIT, 0.0);
    if (jit > 0) {
      md.append(
          String.format(
              "- Of weir's own work, the JIT compiler took %.2f per 1,000 documents (%.0f %% of"
                  + " the job JVM's CPU): the compiler is still at work in this pass, a cost a"
                  + " deployment pays in its first minutes, not per document. Without it,"
                  + " the bound above would be %.2f. Counted from the compiler threads alive at"
                  + " the end (a stopped one takes its time with it), so at least this much.%n",
              jit * 1000 / r.weir().documents(),
              100 * jit / weir.getOrDefault(CpuUse.THIS_JVM, jit),
              (rawTotal / r.raw().documents()) / ((weirTotal - jit) / r.weir().documents())));
    }
    return md.toString();
  }
}
