package dev.weir.bench.identity;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Struct;
import dev.weir.common.config.WeirConfig;
import dev.weir.identity.IdentityOptions;
import dev.weir.identity.SpannerCalls;
import dev.weir.identity.SpannerClients;
import dev.weir.schema.TrackingEvent;
import dev.weir.stack.LocalStack;
import dev.weir.stack.SpannerEmulatorService;
import java.util.List;
import java.util.Map;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * The identity benchmark's pass on Cloud Spanner's emulator: weir's job with its Spanner store vs a
 * naive loop (per event, a read-write transaction that reads the row and writes it whole), on the
 * same generated input, counting what each sent to Spanner: round trips (gRPC calls) and mutations.
 * The emulator models no latency, splits or quotas, so its times say little about Cloud Spanner;
 * the counts are what a deployment pays for.
 */
public final class SpannerIdentityPass {

  private static final String TABLE = "identity_mapping";

  /** What one side sent, and how long it took. */
  public record Side(String name, long events, double seconds, SpannerCalls.Total sent) {
    double callsPerEvent() {
      return (double) sent.calls() / events;
    }

    double mutationsPerEvent() {
      return (double) sent.mutations() / events;
    }
  }

  public record Result(long events, int distinctIds, Side weir, Side naive) {}

  private SpannerIdentityPass() {}

  /** Whether the pass can run: the stack runs the emulator. */
  public static boolean available(LocalStack stack) {
    return stack.spanner().isUp();
  }

  public static Result run(LocalStack stack, long events, double repeatRatio) throws Exception {
    stack.up();
    if (!stack.spanner().isUp()) {
      throw new IllegalStateException(
          "the Spanner pass needs the stack's Spanner emulator: "
              + SpannerEmulatorService.HOW_TO_INSTALL);
    }
    int distinctIds = (int) Math.max(1, Math.round(events * (1 - repeatRatio)));
    WeirConfig config =
        WeirConfig.from(Map.of(), stack.environment()).with(IdentityOptions.STORE, "spanner");
    SpannerClients.Settings settings = SpannerClients.Settings.of(config);
    try (SpannerClients.Lease lease = SpannerClients.lease(settings)) {
      DatabaseClient client = lease.client();
      clear(client);
      Side weir =
          measure(
              "weir (keyed-state cache, batched lookups, writes only changed columns)",
              events,
              () -> IdentityBenchmark.weirJob(config, events, distinctIds, 1));
      clear(client);
      Side naive =
          measure(
              "naive (per event: read the row, write it whole, in one read-write transaction)",
              events,
              () -> naive(client, events, distinctIds));
      return new Result(events, distinctIds, weir, naive);
    }
  }

  /** The benchmark's rows of earlier runs (the emulator keeps them while it runs). */
  private static void clear(DatabaseClient client) {
    TrackingEvent any = IdentityBenchmark.event(0, 1);
    client.writeAtLeastOnce(
        List.of(Mutation.delete(TABLE, KeySet.prefixRange(Key.of(any.projectId())))));
  }

  private static Side measure(String name, long events, ThrowingRunnable<Exception> work)
      throws Exception {
    SpannerCalls.Total before = SpannerCalls.total();
    long start = System.nanoTime();
    work.run();
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Side(name, events, seconds, SpannerCalls.total().minus(before));
  }

  private static void naive(DatabaseClient client, long events, int distinctIds) {
    for (long i = 0; i < events; i++) {
      TrackingEvent e = IdentityBenchmark.event(i, distinctIds);
      Timestamp time = Timestamp.ofTimeMicroseconds(e.time().toEpochMilli() * 1000);
      client
          .readWriteTransaction()
          .run(
              tx -> {
                Struct row =
                    tx.readRow(
                        TABLE,
                        Key.of(e.projectId(), e.distinctId()),
                        List.of("canonical_id", "earliest_seen"));
                String canonical = e.distinctId();
                Timestamp earliest = time;
                if (row != null) {
                  canonical = row.isNull(0) ? canonical : row.getString(0);
                  if (!row.isNull(1) && row.getTimestamp(1).compareTo(earliest) < 0) {
                    earliest = row.getTimestamp(1);
                  }
                }
                tx.buffer(
                    Mutation.newInsertOrUpdateBuilder(TABLE)
                        .set("project_id")
                        .to(e.projectId())
                        .set("distinct_id")
                        .to(e.distinctId())
                        .set("canonical_id")
                        .to(canonical)
                        .set("earliest_seen")
                        .to(earliest)
                        .set("identify_seen")
                        .to(false)
                        .set("alias_seen")
                        .to(false)
                        .set("people_update_seen")
                        .to(false)
                        .set("updated_at")
                        .to(Timestamp.now())
                        .build());
                return null;
              });
    }
  }

  /** The pass as a section of the identity benchmark's results. */
  public static String markdown(Result r) {
    StringBuilder md = new StringBuilder("\n## On Cloud Spanner's emulator\n\n");
    md.append(
        String.format(
            "%,d generated tracking events over %,d distinct ids, each side on an empty table of the"
                + " local stack's emulator; what each sent to it, counted by the client (every gRPC"
                + " call: reads, commits, begins, session calls, retries).%n%n",
            r.events(), r.distinctIds()));
    md.append(
        "| | events/s | round trips | per event | commits | aborted (retried) | mutations | per"
            + " event |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Side s : List.of(r.weir(), r.naive())) {
      md.append(
          String.format(
              "| %s | %,.0f | %,d | %.4f | %,d | %,d | %,d | %.4f |%n",
              s.name(),
              s.events() / s.seconds(),
              s.sent().calls(),
              s.callsPerEvent(),
              s.sent().commits(),
              s.sent().aborted(),
              s.sent().mutations(),
              s.mutationsPerEvent()));
    }
    md.append(
        String.format(
            "%n- round trips per event: weir %.4f vs naive %.4f (**%.0f× fewer**); mutations per"
                + " event: %.4f vs %.4f%n",
            r.weir().callsPerEvent(),
            r.naive().callsPerEvent(),
            r.naive().callsPerEvent() / r.weir().callsPerEvent(),
            r.weir().mutationsPerEvent(),
            r.naive().mutationsPerEvent()));
    md.append(
        "- The emulator runs one read-write transaction at a time and models no network latency,"
            + " splits or quotas: its events/s say little about Cloud Spanner, where every round"
            + " trip costs milliseconds and every mutation a write (and is billed); the counts are"
            + " what carries over. Mutations are counted as Spanner counts them against its"
            + " per-commit limit: one per column value written. weir's job runs in a local MiniCluster as deployed (checkpoints,"
            + " exactly-once), with the output discarded.\n");
    return md.toString();
  }
}
