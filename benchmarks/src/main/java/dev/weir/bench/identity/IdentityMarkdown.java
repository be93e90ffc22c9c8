package dev.weir.bench.identity;

import dev.weir.bench.support.BenchReport;

/** identity against the naive enrichment ({@link IdentityBenchmark}) as Markdown. */
public final class IdentityMarkdown {

  private IdentityMarkdown() {}

  /** The results as Markdown, with the command that made them. */
  public static String of(IdentityBenchmark.Result r, String command) {
    StringBuilder md = BenchReport.header("identity benchmark", command);
    md.append(
        "PostgreSQL of the local stack (fsync off); weir's job (parallelism 1, in a local"
            + " MiniCluster) and the naive loop on the same input, one after the other, each on a fresh database.\n\n");
    md.append(
        String.format(
            "Input: %,d generated tracking events over %,d distinct ids (%.1f %% of the events repeat an id"
                + " already seen), times increasing.%n%n",
            r.events(), r.distinctIds(), 100.0 * (r.events() - r.distinctIds()) / r.events()));
    md.append(
        "| | events/s | events per CPU-second (per core) | after warm-up: events/s | after warm-up:"
            + " events per CPU-second (per core) | index lookups | rows written | commits |"
            + " (index lookups + rows written) / event |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (IdentityBenchmark.Measurement m :
        new IdentityBenchmark.Measurement[] {r.weir(), r.naive()}) {
      md.append(
          String.format(
              "| %s | %,.0f | %,.0f | %,.0f | %,.0f | %,d | %,d | %,d | %.4f |%n",
              m.name(),
              m.eventsPerSecond(),
              m.eventsPerCpuSecond(),
              m.steadyEventsPerSecond(),
              m.steadyEventsPerCpuSecond(),
              m.queries(),
              m.rowsWritten(),
              m.transactions(),
              m.statementsPerEvent()));
    }
    double perCore = r.weir().steadyEventsPerCpuSecond();
    md.append(
        String.format(
            "%n- weir, events per CPU-second after warm-up (all threads of the JVM: the job, JIT, GC; the"
                + " database excluded): **%,.0f** (target ≥ 100k per core: %s); over the whole run,"
                + " MiniCluster start-up included: %,.0f%n",
            perCore, perCore >= 100_000 ? "met" : "NOT met", r.weir().eventsPerCpuSecond()));
    md.append(
        String.format(
            "- database work per event (index lookups + rows written): weir %.4f vs naive %.4f (**%.0f× less**)%n",
            r.weir().statementsPerEvent(),
            r.naive().statementsPerEvent(),
            r.naive().statementsPerEvent() / r.weir().statementsPerEvent()));
    md.append(
        "- \"After warm-up\" counts from the moment the source generated event n/5 to the end of the run (the job's"
            + " last flush included). weir's job runs as deployed (checkpoints on,"
            + " exactly-once), with the output discarded instead of written to Kafka."
            + " Index lookups are pg_stat_user_tables.idx_scan: PostgreSQL 17 counts each key of a batched"
            + " `= ANY(array)` lookup, so weir's one query per 20 ms window shows as one lookup per missed id;"
            + " commits (pg_stat_database.xact_commit) show the round trips saved.\n");
    return md.toString();
  }
}
