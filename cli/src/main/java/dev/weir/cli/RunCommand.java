package dev.weir.cli;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.job.WeirJob;
import dev.weir.documents.DocumentOptions;
import dev.weir.stack.LocalStack;
import dev.weir.stack.SpannerEmulatorService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.api.java.utils.ParameterTool;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Run a job on a local Flink MiniCluster against the stack (see `weir stack up`).",
      "Job options follow the job name, e.g.: weir run activity-feed --checkpoint.interval 5s"
    })
final class RunCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job to run.")
  String job;

  /** Everything after the job name that is not the command's own option: the job's options. */
  @picocli.CommandLine.Unmatched List<String> jobArgs = new ArrayList<>();

  @Option(
      names = "--documents",
      paramLabel = "FILE",
      description =
          "search-index and cdc-catalog: a document definition file (the same as"
              + " --search.documents FILE; see docs/document-definitions.md).")
  String documents;

  @Option(
      names = "--web-port",
      defaultValue = "8081",
      description = "Port of the Flink web UI (default: ${DEFAULT-VALUE}).")
  int webPort;

  @Override
  public Integer call() throws Exception {
    WeirJob weirJob = JobRunner.job(job);
    WeirConfig config =
        WeirConfig.from(
            ParameterTool.fromArgs(jobArgs.toArray(String[]::new)).toMap(), environment());
    if (documents != null) {
      config = config.with(DocumentOptions.DOCUMENTS, documents);
    }
    JobClient client = JobRunner.start(weirJob, localEnvironment(webPort), config);
    spec.commandLine()
        .getOut()
        .printf(
            "running %s (job id %s); Flink web UI: http://127.0.0.1:%d ; Ctrl-C stops it%n",
            weirJob.name(), client.getJobID(), webPort);
    spec.commandLine().getOut().flush();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> client.cancel().join()));
    client.getJobExecutionResult().get();
    return 0;
  }

  /**
   * The process environment; with no Spanner setting in it, the local stack's emulator (when it
   * runs), so that {@code --identity.store spanner} needs no other option. A Spanner named by the
   * environment or {@code --spanner.*} arguments is never replaced.
   */
  private Map<String, String> environment() {
    Map<String, String> env = new HashMap<>(System.getenv());
    boolean spannerNamed =
        env.keySet().stream().anyMatch(k -> k.startsWith("SPANNER_"))
            || jobArgs.stream().anyMatch(a -> a.startsWith("--spanner."));
    SpannerEmulatorService emulator = LocalStack.fromEnvironment().spanner();
    if (!spannerNamed && emulator.isUp()) {
      env.putAll(emulator.environment());
    }
    return env;
  }

  static StreamExecutionEnvironment localEnvironment(int webPort) {
    Configuration conf = new Configuration();
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(RestOptions.PORT, webPort);
    return StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(conf);
  }
}
