package dev.weir.bench.scale;

import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.IndexWork;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.ElasticsearchConnection;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * backfill over the copy the initial sync wrote: a whole run into an empty index (against the raw
 * bulk of the same documents, measured in the same run), a run killed (SIGKILL, its own JVM) once
 * half the documents were indexed and then started again (it resumes: what the target holds with
 * the same hash is skipped), and a run over the unchanged index (what it sends again).
 */
final class ScaleBackfill {

  /** A backfill run and the CPU seconds each process used over it. */
  record Run(Backfill.Summary summary, Map<String, Double> cpu) {
    double documentsPerSecond() {
      return summary.documents() / seconds();
    }

    double seconds() {
      return summary.elapsed().toMillis() / 1e3;
    }
  }

  /**
   * @param indexedAtKill the index operations the target had applied when the run was killed
   * @param killedAfterSeconds from the killed run's start until its kill
   */
  record Result(
      long documents,
      int parallelism,
      Run whole,
      long indexedAtKill,
      double killedAfterSeconds,
      Run resumed,
      Run again) {

    /** The re-run's bytes over the whole run's, in percent (target at most 1). */
    double againBytesPercent() {
      return 100.0 * again.summary().bytesSent() / Math.max(1, whole.summary().bytesSent());
    }
  }

  static final String TARGET = "bench-scale-backfill";

  private ScaleBackfill() {}

  static Result run(
      WeirConfig sync,
      long documents,
      int parallelism,
      Supplier<Map<String, Long>> processes,
      Path workDir,
      Consumer<String> log)
      throws Exception {
    WeirConfig config =
        sync.with(BackfillOptions.TARGET, TARGET)
            .with(WeirOptions.PARALLELISM, Integer.toString(parallelism))
            // Nothing else writes the copy meanwhile: no streaming writes to wait for.
            .with(BackfillOptions.SETTLE, "0 s");
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      es.deleteIndex(TARGET);
      BenchEnvironment.awaitMergesDone(es);
      Run whole = backfill(config, processes, log, "whole run");

      es.deleteIndex(TARGET);
      BenchEnvironment.awaitMergesDone(es);
      long start = System.nanoTime();
      Process killed = startInOwnJvm(config, workDir.resolve("backfill-killed.log"));
      long indexed = 0;
      long deadline = System.nanoTime() + Duration.ofMinutes(60).toNanos();
      while (indexed < documents / 2) {
        if (!killed.isAlive()) {
          throw new IllegalStateException(
              "the backfill to be killed ended first (exit "
                  + killed.exitValue()
                  + "), see "
                  + workDir.resolve("backfill-killed.log"));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the backfill did not index half the documents in 60 min");
        }
        Thread.sleep(200);
        indexed = indexed(es);
      }
      killed.destroyForcibly().waitFor();
      double killedAfter = (System.nanoTime() - start) / 1e9;
      long atKill = indexed(es);
      log.accept(String.format("backfill killed after %.1f s, %,d indexed", killedAfter, atKill));
      Run resumed = backfill(config, processes, log, "resumed");
      Run again = backfill(config, processes, log, "again, over the unchanged index");
      return new Result(documents, parallelism, whole, atKill, killedAfter, resumed, again);
    }
  }

  /** Index operations the target applied (none before it exists). */
  private static long indexed(SearchCluster es) {
    try {
      return IndexWork.read(es, TARGET).indexed();
    } catch (IOException notThereYet) {
      return 0;
    }
  }

  private static Run backfill(
      WeirConfig config, Supplier<Map<String, Long>> processes, Consumer<String> log, String name)
      throws Exception {
    CpuUse cpu = CpuUse.start(processes.get());
    Backfill.Summary summary =
        Backfill.run(
            config, false, StreamExecutionEnvironment::getExecutionEnvironment, (p, d, t, r) -> {});
    log.accept("backfill, " + name + ": " + summary.stepsLine() + ", sent " + summary.sent());
    return new Run(summary, cpu.seconds());
  }

  /**
   * A backfill in a JVM of its own (its entry point, as a deployment runs it), logging to a file.
   */
  private static Process startInOwnJvm(WeirConfig config, Path logFile) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens")
          || arg.startsWith("--add-exports")
          || arg.startsWith("-Dweir.")) {
        command.add(arg);
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Backfill.class.getName()));
    new TreeMap<>(config.asMap()).forEach((k, v) -> command.addAll(List.of("--" + k, v)));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(logFile.toFile())
        .start();
  }
}
