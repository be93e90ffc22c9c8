package dev.weir.cli;

import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code weir}: the local stack, the jobs, loaders and the demo. */
@Command(
    name = "weir",
    mixinStandardHelpOptions = true,
    version = "weir 0.1.0",
    description =
        "Stream-processing jobs on Apache Flink: activity feed, identity, search index, backfill.",
    footer = {
      "",
      "bin/weir bench ...: the benchmarks, from the benchmarks module (bin/weir bench --help)."
    },
    subcommands = {
      StackCommand.class,
      DbCommand.class,
      RunCommand.class,
      LoadCommand.class,
      DocumentsCommand.class,
      DemoCommand.class,
      BackfillCommand.class,
      ClusterCommand.class,
      CommandLine.HelpCommand.class
    })
public final class WeirCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // Client libraries that log through java.util.logging (the Spanner client and gRPC) speak up
    // only when something is wrong, as the log4j configuration has every other library do.
    Logger.getLogger("").setLevel(Level.WARNING);
    System.exit(commandLine().execute(args));
  }

  public static CommandLine commandLine() {
    return commandLine(new WeirCli());
  }

  /** {@code command} as weir runs every command: a failure prints one line, not a trace. */
  public static CommandLine commandLine(Object command) {
    CommandLine cli = new CommandLine(command);
    // A failure prints one clear line, not a stack trace; --verbose is for the trace.
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("weir: " + e.getMessage());
          if (Boolean.getBoolean("weir.verbose")) {
            e.printStackTrace(commandLine.getErr());
          }
          return 1;
        });
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
