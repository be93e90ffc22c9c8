package dev.weir.bench.feed;

import dev.weir.bench.support.BenchReport;
import dev.weir.bench.support.WalRecords;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** activity-feed against the naive collation ({@link FeedBenchmark}) as Markdown. */
public final class FeedMarkdown {

  private FeedMarkdown() {}

  /**
   * Where weir's and the floor's WAL per entry go, by the part of the database written and record
   * type: the judged ratio is only as steady as the floor, and this says which records differ.
   */
  private static void appendWalByPart(StringBuilder md, FeedBenchmark.Result r) {
    if (r.weir().walByPart().isEmpty()
        || r.floor().walByPart().isEmpty()
        || r.weir().inserts() == 0
        || r.floor().inserts() == 0) {
      return;
    }
    md.append(
        String.format(
            "%nWAL per entry by part and record type (%s, bursts of %d; full-page images"
                + " separately; pg_walinspect):%n%n",
            r.scenario(), r.burst()));
    md.append(
        "| part: record type | records weir | B/entry weir | of which page images |"
            + " records floor | B/entry floor | of which page images |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|\n");
    Map<String, WalRecords> floor = new LinkedHashMap<>();
    r.floor().walByPart().forEach(w -> floor.put(w.type(), w));
    Map<String, WalRecords> weir = new LinkedHashMap<>();
    r.weir().walByPart().forEach(w -> weir.put(w.type(), w));
    Set<String> types = new LinkedHashSet<>(weir.keySet());
    types.addAll(floor.keySet());
    double weirEntries = r.weir().inserts();
    double floorEntries = r.floor().inserts();
    for (String type : types) {
      WalRecords w = weir.getOrDefault(type, new WalRecords(type, 0, 0, 0));
      WalRecords f = floor.getOrDefault(type, new WalRecords(type, 0, 0, 0));
      md.append(
          String.format(
              "| %s | %,d | %,.1f | %,.1f | %,d | %,.1f | %,.1f |%n",
              type,
              w.count(),
              w.bytes() / weirEntries,
              w.fullPageImageBytes() / weirEntries,
              f.count(),
              f.bytes() / floorEntries,
              f.fullPageImageBytes() / floorEntries));
    }
    md.append(
        String.format(
            "| **all** | | **%,.1f** | | | **%,.1f** | |%n",
            r.weir().walBytes() / weirEntries, r.floor().walBytes() / floorEntries));
  }

  /** The results as Markdown, with the command that made them. */
  public static String of(FeedBenchmark.Report report, String command) {
    StringBuilder md = BenchReport.header("activity-feed benchmark", command);
    md.append(
        "PostgreSQL of the local stack (fsync off). For each input, weir's job and the naive"
            + " collation run on the same server one after the other, each on a fresh database after a CHECKPOINT."
            + " WAL bytes are each database's own: the records touching its relations and its"
            + " transactions' commits, full-page images included (pg_walinspect).\n\n");
    md.append(
        "Input: generated bursts (one person, one repository, events a second apart, entries interleaved);"
            + " a burst of b events means (b - 1) / b of the events collate into an existing entry."
            + " weir = collate in keyed state, write each entry in place naming only changed columns;"
            + " naive = every collated event INSERTs the entry's new version and DELETEs the old row"
            + " (Postman's original). Both rows carry the same columns, recent details included.\n\n");
    md.append(
        "| input | events | collate | WAL B/event weir | WAL B/event naive | naive / weir |"
            + " row writes/event weir | row writes/event naive | dead tuples weir | dead tuples naive |"
            + " events/s weir | events/s naive |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (FeedBenchmark.Result r : report.results()) {
      FeedBenchmark.Measurement w = r.weir();
      FeedBenchmark.Measurement n = r.naive();
      md.append(
          String.format(
              "| %s, bursts of %d | %,d | %.0f %% | %,.0f | %,.0f | **%.1f×** | %.3f | %.3f | %,d | %,d | %,.0f | %,.0f |%n",
              r.scenario(),
              r.burst(),
              r.events(),
              100 * r.collatingShare(),
              w.walPerEvent(),
              n.walPerEvent(),
              r.walRatio(),
              w.rowWritesPerEvent(),
              n.rowWritesPerEvent(),
              w.deadTuples(),
              n.deadTuples(),
              w.eventsPerSecond(),
              n.eventsPerSecond()));
    }
    FeedBenchmark.Result target =
        report.results().stream()
            .filter(r -> r.burst() == report.targetBurst() && r.scenario().equals("replay speed"))
            .findFirst()
            .orElseThrow();
    md.append(
        String.format(
            "%nTargets, judged on the replay-speed input where %.0f %% of the events collate:%n",
            100 * target.collatingShare()));
    md.append(
        String.format(
            "- row writes per event, weir: **%.3f** (target ≤ 0.2: %s)%n",
            target.weir().rowWritesPerEvent(),
            target.weir().rowWritesPerEvent() <= 0.2 ? "met" : "NOT met"));
    md.append(
        String.format(
            "- WAL per entry, weir / each final entry row INSERTed once (batched, a fresh table, the"
                + " same server): **%.2f×** (%,.0f vs %,.0f B; target ≤ 1.2×: %s)%n",
            target.walOverFloor(),
            (double) target.weir().walBytes() / target.weir().inserts(),
            (double) target.floor().walBytes() / target.floor().inserts(),
            target.walOverFloor() <= 1.2 ? "met" : "NOT met"));
    md.append(
        String.format(
            "- WAL per event, naive / weir: **%.1f×** (the earlier target, ≥ 10×, replaced by the"
                + " floor above: %s)%n",
            target.walRatio(), target.walRatio() >= 10 ? "met" : "not met"));
    report.results().stream()
        .filter(r -> r.scenario().equals("replay speed") && r.walRatio() >= 10)
        .mapToInt(FeedBenchmark.Result::burst)
        .min()
        .ifPresent(
            b ->
                md.append(
                    String.format(
                        "- the WAL ratio reaches 10× from bursts of %d events (%.0f %% collating) in this run%n",
                        b, 100.0 * (b - 1) / b)));
    md.append(
        "- events/s of weir includes starting a Flink MiniCluster job; the naive loop is plain JDBC.\n");
    appendWalByPart(md, target);
    md.append(
        "\nWhat drives the numbers. weir writes an entry at most once per coalescing interval"
            + " (max-staleness / 2 = 1 s): all events of a burst that arrive within it cost one row write, the"
            + " entry's INSERT. The naive collation writes a full row per event and deletes one per collated"
            + " event, so its WAL grows with the burst while weir's stays one row per entry: the ratio is"
            + " bounded by about the burst size (a little more, since naive deletes also cost WAL and leave"
            + " dead tuples for vacuum). At 80 % collation that bound is near 5×, so the 10× target cannot be"
            + " met on that input by any design that writes each entry at least once; it is met when bursts"
            + " are longer. When an entry's events arrive further apart than the interval (the paced input),"
            + " each costs one in-place UPDATE; last_at is in the feed index, so the UPDATE is not HOT and"
            + " leaves a dead tuple like a delete does, and weir's advantage shrinks to no insert-and-delete"
            + " pair and a smaller table.\n");
    return md.toString();
  }
}
