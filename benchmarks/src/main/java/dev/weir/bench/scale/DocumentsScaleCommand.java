package dev.weir.bench.scale;

import dev.weir.stack.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weir bench documents-scale}: {@link DocumentsScaleBenchmark}. */
@Command(
    name = "documents-scale",
    mixinStandardHelpOptions = true,
    description =
        "Declared documents at scale on the real multi-process cluster: a generated store"
            + " (orders.json: 1,000,000 orders, over 5 million rows by default) through cdc-catalog"
            + " and search-index from an empty start against a raw bulk, the heap, state and"
            + " checkpoints; a brand shared by a tenth of the documents renamed while orders"
            + " change; backfill whole, killed and resumed, again; the sync with a TaskManager"
            + " killed halfway. Hours at the full size on 2 cores: run it on a quiet machine.")
public final class DocumentsScaleCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description = "The size bench all runs: " + DocumentsScaleBenchmark.QUICK_ROOTS + " orders.")
  boolean quick;

  @Option(
      names = "--roots",
      defaultValue = "" + DocumentsScaleBenchmark.FULL_ROOTS,
      description = "Orders, one document each (default: ${DEFAULT-VALUE}).")
  long roots;

  @Option(
      names = "--parallelism",
      defaultValue = "1",
      description = "search-index's parallelism (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--change-rate",
      defaultValue = "" + DocumentsScaleBenchmark.DEFAULT_CHANGE_RATE,
      description = "Order changes a second during the fan-out (default: ${DEFAULT-VALUE}).")
  int changeRate;

  @Option(
      names = "--cluster-port",
      defaultValue = "" + DocumentsScaleBenchmark.DEFAULT_CLUSTER_PORT,
      description =
          "REST port of the benchmark's own Flink cluster, and the next one its RPC port"
              + " (default: ${DEFAULT-VALUE}).")
  int clusterPort;

  @Option(
      names = "--steps",
      split = ",",
      defaultValue = "sync,fanout,backfill,fault",
      description = "Which steps; the sync always runs (default: ${DEFAULT-VALUE}).")
  List<String> steps;

  @Option(
      names = "--out",
      description =
          "Results file (default: benchmarks/results/documents-scale.md, with --quick"
              + " documents-scale-quick.md).")
  Path out;

  @Override
  public Integer call() throws Exception {
    long size = quick ? DocumentsScaleBenchmark.QUICK_ROOTS : roots;
    Set<String> chosen = new LinkedHashSet<>(steps);
    if (!DocumentsScaleBenchmark.STEPS.containsAll(chosen)) {
      throw new IllegalArgumentException("--steps takes " + DocumentsScaleBenchmark.STEPS);
    }
    LocalStack stack = LocalStack.fromEnvironment();
    DocumentsScaleBenchmark.Result result =
        DocumentsScaleBenchmark.run(
            stack,
            new DocumentsScaleBenchmark.Options(size, parallelism, changeRate, clusterPort, chosen),
            stack.envFile().getParent().resolve("bench-scale"),
            step -> spec.commandLine().getOut().println("documents-scale: " + step));
    String command =
        "bin/weir bench documents-scale"
            + (quick ? " --quick" : " --roots " + roots)
            + (parallelism == 1 ? "" : " --parallelism " + parallelism)
            + (changeRate == DocumentsScaleBenchmark.DEFAULT_CHANGE_RATE
                ? ""
                : " --change-rate " + changeRate)
            + (clusterPort == DocumentsScaleBenchmark.DEFAULT_CLUSTER_PORT
                ? ""
                : " --cluster-port " + clusterPort)
            + (chosen.size() == DocumentsScaleBenchmark.STEPS.size()
                ? ""
                : " --steps " + String.join(",", chosen));
    Path file =
        out != null
            ? out
            : Path.of("benchmarks/results/documents-scale" + (quick ? "-quick" : "") + ".md");
    String md = DocumentsScaleMarkdown.of(result, command);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, md);
    spec.commandLine().getOut().println(md);
    spec.commandLine().getOut().println("written to " + file);
    return 0;
  }
}
