package dev.weir.cli;

import dev.weir.cli.bench.FeedBenchmark;
import dev.weir.stack.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Benchmarks measured side by side in one run on the local stack; results go to benchmarks/results/.")
final class BenchCommand {

  @Spec CommandSpec spec;

  @Command(
      name = "activity-feed",
      mixinStandardHelpOptions = true,
      description =
          "weir's collation vs insert-new + delete-old on the same input: WAL, row writes, dead tuples, events/s.")
  int activityFeed(
      @Option(
              names = "--events",
              defaultValue = "50000",
              description = "Events to generate (default: ${DEFAULT-VALUE}).")
          int events,
      @Option(
              names = "--burst",
              defaultValue = "5",
              description = "Events per entry; 5 means 80% collate (default: ${DEFAULT-VALUE}).")
          int burst,
      @Option(
              names = "--out",
              defaultValue = "benchmarks/results/activity-feed.md",
              description = "Results file (default: ${DEFAULT-VALUE}).")
          Path out)
      throws Exception {
    FeedBenchmark.Result result = FeedBenchmark.run(LocalStack.fromEnvironment(), events, burst);
    String md =
        FeedBenchmark.markdown(
            result, "bin/weir bench activity-feed --events " + events + " --burst " + burst);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, md);
    spec.commandLine().getOut().println(md);
    spec.commandLine().getOut().println("written to " + out);
    return 0;
  }
}
