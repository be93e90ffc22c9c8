package dev.weir.cli;

import dev.weir.cli.load.GithubLoader;
import dev.weir.common.config.WeirConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    description = "Produce sample or real data to weir's topics.")
final class LoadCommand {

  @Spec CommandSpec spec;

  /** What a load did. */
  record Loaded(long produced, long skipped) {}

  @Command(
      name = "github",
      mixinStandardHelpOptions = true,
      description =
          "Map GH Archive events (one JSON object a line) onto activity.events, in file order.")
  int github(
      @Parameters(
              paramLabel = "FILE",
              arity = "0..1",
              description =
                  "GH Archive .ndjson file; default: the bundled 2021-07-21 sample (369 events).")
          Path file,
      @Option(
              names = "--topic",
              defaultValue = "activity.events",
              description = "Target topic (default: ${DEFAULT-VALUE}).")
          String topic)
      throws IOException {
    Loaded loaded =
        loadGithub(
            WeirConfig.from(Map.of(), System.getenv()), file, topic, spec.commandLine().getErr());
    spec.commandLine()
        .getOut()
        .printf(
            "produced %d activity events to %s (%d line(s) skipped)%n",
            loaded.produced(), topic, loaded.skipped());
    return 0;
  }

  static Loaded loadGithub(WeirConfig config, Path file, String topic, java.io.PrintWriter err)
      throws IOException {
    GithubLoader.Result result = GithubLoader.load(config, file, topic, err);
    return new Loaded(result.produced(), result.skipped());
  }
}
