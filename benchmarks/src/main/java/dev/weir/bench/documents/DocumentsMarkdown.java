package dev.weir.bench.documents;

import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.RawBulk;
import dev.weir.bench.support.WalRecords;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.search.SearchIndexOptions;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The declared document's results ({@link DocumentsBenchmark}) as Markdown. */
public final class DocumentsMarkdown {

  private DocumentsMarkdown() {}

  /** CPU seconds by process over each step's timed seconds, one column per step. */
  private static void appendCpu(StringBuilder md, List<DocumentsBenchmark.FanOut> steps) {
    md.append("CPU seconds each process used during each step (Linux /proc; the benchmark JVM is");
    md.append(" the job's MiniCluster, or the raw bulk's client):\n\n| process |");
    Set<String> processes = new TreeSet<>();
    for (DocumentsBenchmark.FanOut f : steps) {
      md.append(' ').append(f.name()).append(" |");
      processes.addAll(f.cpu().keySet());
    }
    md.append("\n|---|").append("---:|".repeat(steps.size())).append('\n');
    for (String process : processes) {
      md.append("| ").append(process).append(" |");
      for (DocumentsBenchmark.FanOut f : steps) {
        md.append(String.format(Locale.ROOT, " %.1f |", f.cpu().getOrDefault(process, 0.0)));
      }
      md.append('\n');
    }
    md.append('\n');
  }

  public static String of(DocumentsBenchmark.Result r, String command) {
    StringBuilder md = new StringBuilder();
    md.append("# search-index on a declared document (schemas/documents/products.json)\n\n");
    md.append("Regenerate: `").append(command).append("`  \n");
    md.append(
        String.format(
            Locale.ROOT,
            "Measured: %s, %d cores, the local stack (PostgreSQL with fsync off, one Elasticsearch"
                + " node). Input: a catalog of %,d products (descriptions of ~6 kB, TOASTed), all of"
                + " ONE brand, and a price each; cdc-catalog and the declared search-index job"
                + " running as deployed (coalescing %s).%n%n",
            r.measured(),
            Runtime.getRuntime().availableProcessors(),
            r.products(),
            SearchIndexOptions.COALESCE.defaultValue()));
    md.append("## A change every document shares: the brand of all of them renamed\n\n");
    md.append(
        "Timed from the first rename's commit until a search finds the last name in every"
            + " document, at steady state: after one untimed rename of the same brand (the JIT"
            + " warmed on this path), each step started once Elasticsearch ran no merge, as each"
            + " raw bulk pass is. Copy rows are `n_tup_upd` of the copy table, index operations"
            + " are the index's `indexing.index_total`, both over the step.\n\n");
    md.append(
        "| change | documents | seconds | of which until readable in the capture's topic | documents/s"
            + " | copy rows per document | index operations per document |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|\n");
    for (DocumentsBenchmark.FanOut f : r.fanOuts()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %.1f | %s | %,.0f | %.2f | %.2f |%n",
              f.name(),
              f.documents(),
              f.seconds(),
              Double.isNaN(f.readableSeconds())
                  ? "–"
                  : String.format(Locale.ROOT, "%.1f", f.readableSeconds()),
              f.documentsPerSecond(),
              f.copyRowsPerDocument(),
              f.indexOperationsPerDocument()));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%n- One rename until every document shows it / a raw bulk of as many of these"
                + " documents (%,.0f/s, the %s, the end-to-end pass below): **%s** (target ≤"
                + " 2×: %s).",
            r.declared().raw().documentsPerSecond(),
            r.declared().raw().passesSummary(),
            BenchReport.shown(r.fanOutOverRawBulk(), 2, "×"),
            r.fanOutOverRawBulk() <= 2 ? "met" : "NOT met"));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- Of the rename's %.1f s, %.1f s passed before the change was readable in the"
                + " capture's topic: cdc-catalog writes it exactly once, committed with its"
                + " checkpoints (`checkpoint.interval`, %s by default), and the job reads"
                + " read_committed. From then until every document showed it: %.1f s, %.2f× the"
                + " raw bulk's time.",
            r.rename().seconds(),
            r.rename().readableSeconds(),
            new CatalogCaptureJob().defaultCheckpointInterval().toSeconds() + " s",
            r.rename().seconds() - r.rename().readableSeconds(),
            r.fanOutFromReadableOverRawBulk()));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- A rename overwrites the documents the index holds: a raw bulk overwriting them,"
                + " timed the same way, ran at %,.0f/s, and the rename took %.2f× its time.",
            r.rawOverwrite().documentsPerSecond(),
            r.rename().seconds() / r.rawOverwrite().seconds()));
    r.fanOutOverRawOwnCore()
        .ifPresent(
            ratio ->
                md.append(
                    String.format(
                        Locale.ROOT,
                        "%n- With Elasticsearch on a core of its own and everything else (the"
                            + " job's JVM, PostgreSQL, Kafka) on the other (`taskset`), the rename"
                            + " took **%.2f×** the time of a raw bulk overwriting the same documents"
                            + " on the same cores (%,.0f against %,.0f documents/s). The judged"
                            + " ratio above is the one on shared cores.",
                        ratio,
                        r.renameOwnCore().documentsPerSecond(),
                        r.rawOverwriteOwnCore().documentsPerSecond())));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- %d renames within %.1f s wrote each document %.2f times to the copy and %.2f times"
                + " to Elasticsearch: a burst to one node shared by every root is coalesced.%n%n",
            DocumentsBenchmark.BURST,
            (DocumentsBenchmark.BURST - 1) * 0.02,
            r.burst().copyRowsPerDocument(),
            r.burst().indexOperationsPerDocument()));
    appendCpu(md, r.fanOuts());
    md.append("## Price-only changes: what the copy writes\n\n");
    md.append(
        "One new price per product (after a CHECKPOINT). WAL is the server's"
            + " `pg_current_wal_lsn()` difference over the step; the hand-written side updates a"
            + " copy of the same table, made before the step, to the same final values.\n\n");
    md.append(
        "| | changes | WAL bytes | WAL bytes / change | rows updated | TOAST tuples written |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (CopyWrites w : List.of(r.declaredWrites(), r.handWritten())) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %,d | %,d | %,d | %,d |%n",
              w.name(),
              w.changes(),
              w.walBytes(),
              w.walBytes() / Math.max(1, w.changes()),
              w.rowsUpdated(),
              w.toast()));
    }
    double walRatio = r.walOverHandWritten();
    md.append(
        String.format(
            Locale.ROOT,
            "%n- weir's WAL per change / the hand-written UPDATE's: **%s** (target ≤ 1.2: %s);"
                + " TOAST tuples written by weir: **%d**.%n",
            BenchReport.shown(walRatio, 1.2, ""),
            walRatio <= 1.2 ? "met" : "NOT met",
            r.declaredWrites().toast()));
    md.append(
        "\n| record type | weir: bytes / change | by hand: bytes / change |\n|---|---:|---:|\n");
    Map<String, long[]> byType = new TreeMap<>();
    for (WalRecords w : r.declaredWrites().records()) {
      byType.computeIfAbsent(w.type(), k -> new long[2])[0] += w.bytes();
    }
    for (WalRecords w : r.handWritten().records()) {
      byType.computeIfAbsent(w.type(), k -> new long[2])[1] += w.bytes();
    }
    byType.forEach(
        (type, bytes) ->
            md.append(
                String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d |%n",
                    type,
                    bytes[0] / Math.max(1, r.declaredWrites().changes()),
                    bytes[1] / Math.max(1, r.handWritten().changes()))));
    if (r.priceLatency() != null) {
      md.append("\n## A price change until it is searchable\n\n");
      md.append(
          String.format(
              Locale.ROOT,
              "With the job running as deployed, %,d price changes, %d per second, each to another"
                  + " product, while the documents of those sent and not yet seen were read every 100"
                  + " ms (mget through the alias): from a change's send time until a read shows its"
                  + " price, **p50 %,d ms, p99 %,d ms**. That is Kafka, the join (coalescing %s on"
                  + " event time), the copy, the index and its refresh (1 s).%n%n",
              r.priceLatency().events(),
              PriceChanges.LATENCY_RATE,
              r.priceLatency().visibleP50(),
              r.priceLatency().visibleP99(),
              SearchIndexOptions.COALESCE.defaultValue()));
    }
    md.append("\n## End to end: documents per second\n\n");
    md.append(
        "The job from the start of the topics (its consumer group deleted) on a fresh copy"
            + " database and index, timed from RUNNING until the alias counts every product; then"
            + " the raw bulk of the documents it indexed, with their versions, "
            + RawBulk.PASSES
            + " times, each pass into a fresh index once Elasticsearch runs no merge (one pass on a"
            + " shared machine is noisy): the median pass (after warm-up where measured) is shown"
            + " and compared,"
            + " with the range of the passes. The JVM and Elasticsearch are warm (the live job"
            + " above ran first).\n\n");
    md.append(
        "| job | documents | seconds | documents/s | raw bulk documents/s (median pass) | raw bulk"
            + " range | ratio | copy rows written per document | index operations per document"
            + " |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    DocumentsBenchmark.EndToEnd e = r.declared();
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %,d | %.1f | %,.0f | %,.0f | %s | %.2f | %.2f | %.2f |%n",
            e.job().name(),
            e.job().documents(),
            e.job().seconds(),
            e.job().documentsPerSecond(),
            e.raw().documentsPerSecond(),
            e.raw().range(),
            e.ratio(),
            (double) (e.copy().inserted() + e.copy().updated()) / e.job().documents(),
            (double) e.job().elasticsearch().indexed() / e.job().documents()));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- weir / the raw bulk of the same documents (%s): **%.2f**.%n",
            r.declared().raw().passesSummary(),
            r.declared().ratio()));
    md.append(
        "\nCPU seconds each process used during the job's timed window (Linux /proc; the"
            + " benchmark JVM is the job's MiniCluster):\n\n| process | declared |\n"
            + "|---|---:|\n");
    new TreeMap<>(e.job().cpu())
        .forEach(
            (process, seconds) ->
                md.append(String.format(Locale.ROOT, "| %s | %.1f |%n", process, seconds)));
    return md.toString();
  }
}
