package dev.weir.it.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.it.Await;
import dev.weir.stack.FlinkCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** Workloads' jobs running on the cluster, submitted from the deployable jar. */
final class ClusterJobs implements AutoCloseable {

  private static final String ENTRY = "dev.weir.common.job.JobRunner";

  /** The jobs' parallelism unless a test asks for another. */
  static final int PARALLELISM = 2;

  private final FlinkCluster cluster;
  private final List<String> ids = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private boolean stopped;

  /** Submits each job of the workload, from its savepoint when {@code savepoints} has one. */
  ClusterJobs(FlinkCluster cluster, Workload workload, Map<String, String> savepoints)
      throws Exception {
    this(cluster, List.of(workload), savepoints, PARALLELISM);
  }

  /** The same for each workload, the jobs at {@code parallelism}. */
  ClusterJobs(
      FlinkCluster cluster,
      List<Workload> workloads,
      Map<String, String> savepoints,
      int parallelism)
      throws Exception {
    this.cluster = cluster;
    for (Workload workload : workloads) {
      for (String job : workload.jobs()) {
        List<String> args = new ArrayList<>(List.of("--job", job));
        workload.config().asMap().forEach((k, v) -> args.addAll(List.of("--" + k, v)));
        ids.add(cluster.submit(jar(), ENTRY, args, parallelism, savepoints.get(job)));
        names.add(job);
      }
    }
  }

  /** Each job's vertices (by name) and their parallelism, in submission order. */
  List<Map<String, Integer>> vertexParallelism() throws Exception {
    List<Map<String, Integer>> jobs = new ArrayList<>();
    for (String id : ids) {
      jobs.add(cluster.vertexParallelism(id));
    }
    return jobs;
  }

  /** Waits until every job runs all its tasks and has completed {@code n} more checkpoints. */
  void awaitCheckpoints(int n, Duration timeout) throws Exception {
    List<Long> before = checkpoints();
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      long target = before.get(i) + n;
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      Await.until(left, () -> healthy(id) && cluster.completedCheckpoints(id) >= target, ok -> ok);
      assertThat(cluster.job(id).state()).as("job %s", id).isEqualTo("RUNNING");
      assertThat(cluster.completedCheckpoints(id))
          .as("checkpoints of job %s within %s", id, timeout)
          .isGreaterThanOrEqualTo(target);
    }
  }

  /** A TaskManager that runs some task of every one of these jobs now. */
  int aTaskManagerRunningThem() throws Exception {
    var running = new TreeSet<>(cluster.taskManagersRunning(ids.get(0)));
    for (String id : ids) {
      running.retainAll(cluster.taskManagersRunning(id));
    }
    assertThat(running).as("TaskManagers running a task of each job of %s", names).isNotEmpty();
    return running.first();
  }

  /**
   * Waits until every job began to restart at or after {@code since} (epoch ms): a failover began
   * for each. False if one did not. (Polling for a job that is not running would miss a quick one.)
   */
  boolean awaitDisruption(Duration timeout, long since) throws Exception {
    return Await.until(
        timeout,
        () -> {
          for (String id : ids) {
            if (cluster.job(id).lastRestart() < since) {
              return false;
            }
          }
          return true;
        },
        disrupted -> disrupted);
  }

  /** Waits until every job is RUNNING with all its tasks. */
  void awaitRunning(Duration timeout) throws Exception {
    for (String id : ids) {
      assertThat(Await.until(timeout, () -> healthy(id), ok -> ok))
          .as("job %s running again within %s", id, timeout)
          .isTrue();
    }
  }

  /** Stops every job with a savepoint, in submission order; returns job name → savepoint. */
  Map<String, String> stopWithSavepoints() throws Exception {
    Map<String, String> savepoints = new LinkedHashMap<>();
    for (int i = 0; i < ids.size(); i++) {
      savepoints.put(names.get(i), cluster.stopWithSavepoint(ids.get(i)));
    }
    stopped = true;
    return savepoints;
  }

  /** The savepoint each job was restored from, in submission order. */
  List<String> restoredFrom() throws Exception {
    List<String> restored = new ArrayList<>();
    for (String id : ids) {
      restored.add(cluster.restoredFrom(id).orElse("(none)"));
    }
    return restored;
  }

  private boolean healthy(String id) throws Exception {
    FlinkCluster.JobState state;
    try {
      state = cluster.job(id);
    } catch (IOException e) {
      return false; // a JobManager starting, or not yet leading: not running yet
    }
    return state.state().equals("RUNNING") && state.allTasksRunning();
  }

  private List<Long> checkpoints() throws Exception {
    List<Long> counts = new ArrayList<>();
    for (String id : ids) {
      counts.add(cluster.completedCheckpoints(id));
    }
    return counts;
  }

  static Path jar() {
    return FlinkCluster.jobsJar(Path.of(".."));
  }

  @Override
  public void close() throws Exception {
    if (!stopped) {
      for (String id : ids) {
        cluster.cancel(id);
      }
    }
  }
}
