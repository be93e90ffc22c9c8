package dev.weir.cli;

import dev.weir.stack.Connections;
import dev.weir.stack.FlinkCluster;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    subcommands = ClusterCommand.Submit.class,
    description = {
      "A real Flink standalone cluster on 127.0.0.1: a JobManager and TaskManagers as separate"
          + " processes, assembled from Flink's jars on Maven Central. Files and logs in .weir/flink/.",
      "Its processes get the local stack's connection settings, as pods get a ConfigMap."
    })
final class ClusterCommand {

  @Spec CommandSpec spec;

  @Option(
      names = "--port",
      defaultValue = "" + FlinkCluster.DEFAULT_REST_PORT,
      description = "REST port (web UI) (default: ${DEFAULT-VALUE}).",
      scope = picocli.CommandLine.ScopeType.INHERIT)
  int port;

  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description = "Start the stack and the cluster.")
  int up(
      @Option(
              names = "--task-managers",
              defaultValue = "2",
              description = "TaskManagers, 2 slots each (default: ${DEFAULT-VALUE}).")
          int taskManagers) {
    Connections connections = LocalStack.fromEnvironment().up();
    long start = System.nanoTime();
    FlinkCluster.Status s = cluster().up(taskManagers, connections.environment());
    spec.commandLine()
        .getOut()
        .printf(
            "Flink cluster up in %.1f s: %d TaskManagers, %d slots; web UI and REST: %s%n",
            (System.nanoTime() - start) / 1e9,
            s.taskManagers(),
            s.slotsTotal(),
            cluster().restUrl());
    printMetricsEndpoints();
    return 0;
  }

  @Command(
      name = "down",
      mixinStandardHelpOptions = true,
      description = "Stop the cluster's processes.")
  int down() {
    cluster().down();
    boolean stillUp = cluster().status().up();
    spec.commandLine().getOut().println("Flink cluster " + (stillUp ? "STILL UP" : "stopped"));
    return stillUp ? 1 : 0;
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "TaskManagers, slots, jobs.")
  int status() {
    FlinkCluster.Status s = cluster().status();
    PrintWriter out = spec.commandLine().getOut();
    if (!s.up()) {
      out.println("Flink cluster down (" + cluster().restUrl() + ")");
      return 1;
    }
    out.printf(
        "Flink cluster up at %s: %d TaskManagers, %d/%d slots free, %d jobs running%n",
        cluster().restUrl(), s.taskManagers(), s.slotsAvailable(), s.slotsTotal(), s.jobsRunning());
    printMetricsEndpoints();
    return 0;
  }

  /** Where Prometheus (or curl) reads each process's metrics; the jobs' are the TaskManagers'. */
  private void printMetricsEndpoints() {
    try {
      cluster()
          .metricsEndpoints()
          .forEach(
              (process, url) ->
                  spec.commandLine().getOut().printf("  metrics of %s: %s%n", process, url));
    } catch (IOException e) {
      spec.commandLine().getErr().println("metrics endpoints unknown: " + e.getMessage());
    }
  }

  @Command(
      name = "submit",
      mixinStandardHelpOptions = true,
      description =
          "Run a job of the shaded jar (jobs/dist) on the cluster through its REST API; job options"
              + " follow as --key value.")
  static final class Submit implements Callable<Integer> {

    @picocli.CommandLine.ParentCommand ClusterCommand parent;

    @Parameters(index = "0", description = "The job: activity-feed, identity, search-index, ...")
    String job;

    @Option(names = "--parallelism", description = "The job's parallelism.")
    Integer parallelism;

    @Option(names = "--from-savepoint", description = "Start from this savepoint.")
    String savepoint;

    @Option(names = "--jar", description = "The jar (default: jobs/dist/target/weir-jobs-*.jar).")
    Path jar;

    @picocli.CommandLine.Unmatched List<String> jobArgs = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
      List<String> args = new ArrayList<>(List.of("--job", job));
      args.addAll(jobArgs);
      if (parallelism != null) {
        args.addAll(List.of("--parallelism", parallelism.toString()));
      }
      FlinkCluster cluster = parent.cluster();
      String id =
          cluster.submit(
              jar != null ? jar : distJar(),
              "dev.weir.common.job.JobRunner",
              args,
              parallelism,
              savepoint);
      parent
          .spec
          .commandLine()
          .getOut()
          .printf(
              "submitted %s: job id %s; %s/#/job/running/%s/overview%n",
              job, id, cluster.restUrl(), id);
      return 0;
    }
  }

  private FlinkCluster cluster;

  /** One per command: it sets up Maven's resolver. */
  private FlinkCluster cluster() {
    if (cluster == null) {
      cluster = new FlinkCluster(LocalStack.fromEnvironment().settings(), port);
    }
    return cluster;
  }

  /**
   * The shaded jar the build made (bin/weir builds it), from the project root or the folder above
   * WEIR_HOME.
   */
  static Path distJar() {
    Path here = Path.of("").toAbsolutePath();
    Path root =
        Files.isDirectory(here.resolve("jobs"))
            ? here
            : LocalStack.fromEnvironment().settings().home().getParent();
    return FlinkCluster.jobsJar(root);
  }
}
