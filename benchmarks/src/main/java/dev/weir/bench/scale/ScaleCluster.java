package dev.weir.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.bench.support.CpuUse;
import dev.weir.common.config.WeirConfig;
import dev.weir.schema.Json;
import dev.weir.stack.Connections;
import dev.weir.stack.FlinkCluster;
import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real multi-process Flink cluster the documents-at-scale benchmark runs its jobs on ({@link
 * FlinkCluster}: a JobManager and two TaskManagers, each its own JVM), configured as the Kubernetes
 * manifests configure search-index (RocksDB, incremental checkpoints, 2 slots in a 4 GB
 * TaskManager): jobs submitted from the deployable jar, their checkpoints read from the REST API,
 * each TaskManager's garbage collections logged (switched on in the running JVM with {@code jcmd
 * VM.log}) for its heap after each collection.
 */
final class ScaleCluster implements AutoCloseable {

  /** The deployment's options for the jobs' TaskManagers (k8s/base/search-index.yaml). */
  static final Map<String, String> CONFIGURATION =
      Map.of(
          "state.backend.type", "rocksdb",
          "execution.checkpointing.incremental", "true",
          "taskmanager.numberOfTaskSlots", "2",
          "taskmanager.memory.process.size", "4096m");

  static final int TASK_MANAGERS = 2;

  private static final String ENTRY = "dev.weir.common.job.JobRunner";
  private static final Pattern AFTER_GC =
      Pattern.compile("GC\\(\\d+\\) Pause .*? (\\d+)M->(\\d+)M\\((\\d+)M\\)");

  /** A class histogram's row: " 1: 1234 56789 java.lang.String (java.base@17)". */
  private static final Pattern HISTOGRAM_LINE =
      Pattern.compile("^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)");

  private static final Pattern HEAP_USED = Pattern.compile("total (\\d+)K, used (\\d+)K");

  private final FlinkCluster cluster;
  private final HttpClient http = HttpClient.newHttpClient();

  private ScaleCluster(FlinkCluster cluster) {
    this.cluster = cluster;
  }

  /** Starts the cluster on {@code port} (its REST port) unless it runs, and logs its GCs. */
  static ScaleCluster up(LocalStack stack, Connections connections, int port) throws IOException {
    FlinkCluster cluster = new FlinkCluster(stack.settings(), port, false, CONFIGURATION);
    cluster.up(TASK_MANAGERS, connections.environment());
    ScaleCluster scale = new ScaleCluster(cluster);
    for (int n = 1; n <= TASK_MANAGERS; n++) {
      scale.logGarbageCollections("taskmanager-" + n);
    }
    return scale;
  }

  /** Submits {@code job} of the deployable jar with {@code config} as its arguments. */
  String submit(String job, WeirConfig config, int parallelism) throws IOException {
    List<String> args = new ArrayList<>(List.of("--job", job));
    new TreeMap<>(config.asMap()).forEach((k, v) -> args.addAll(List.of("--" + k, v)));
    return cluster.submit(
        FlinkCluster.jobsJar(Path.of("").toAbsolutePath()), ENTRY, args, parallelism, null);
  }

  void cancel(String jobId) throws IOException {
    cluster.cancel(jobId);
  }

  /** Until the job runs every task (two minutes at most). */
  void awaitRunning(String jobId) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (true) {
      FlinkCluster.JobState state = cluster.job(jobId);
      if (state.state().equals("RUNNING") && state.allTasksRunning()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("job " + jobId + " is not running: " + state);
      }
      Thread.sleep(100);
    }
  }

  FlinkCluster.JobState job(String jobId) throws IOException {
    return cluster.job(jobId);
  }

  /** The number of a TaskManager running a task of the job. */
  int taskManagerRunning(String jobId) throws IOException {
    return cluster.taskManagersRunning(jobId).first();
  }

  /** The job's checkpoint statistics (Flink's REST API, /jobs/:id/checkpoints). */
  JsonNode checkpoints(String jobId) throws IOException {
    return get("/jobs/" + jobId + "/checkpoints");
  }

  /** The job's checkpoint timeout, in milliseconds. */
  long checkpointTimeoutMs(String jobId) throws IOException {
    return get("/jobs/" + jobId + "/checkpoints/config").path("timeout").asLong();
  }

  /** Kills TaskManager {@code n} (SIGKILL) and starts a replacement, as Kubernetes would. */
  void killAndReplace(int n) throws IOException {
    cluster.killTaskManager(n);
    cluster.startTaskManager(n);
    cluster.awaitTaskManagers(TASK_MANAGERS);
    logGarbageCollections("taskmanager-" + n);
  }

  /** The cluster's processes that run now, by name, for {@link CpuUse}, after the stack's. */
  Map<String, Long> processes(LocalStack stack) {
    Map<String, Long> processes = new LinkedHashMap<>();
    for (LocalService service : stack.services()) {
      service.pid().ifPresent(pid -> processes.put(service.name(), pid));
    }
    for (String name : processNames()) {
      cluster.process(name).ifPresent(p -> processes.put("Flink " + name, p.pid()));
    }
    return processes;
  }

  private static List<String> processNames() {
    List<String> names = new ArrayList<>(List.of("jobmanager"));
    for (int n = 1; n <= TASK_MANAGERS; n++) {
      names.add("taskmanager-" + n);
    }
    return names;
  }

  /**
   * The garbage collections of a running process, from now on, into its GC log (Java's unified
   * logging, switched on in the running JVM): a TaskManager's heap after each collection.
   */
  private void logGarbageCollections(String process) throws IOException {
    Optional<ProcessHandle> p = cluster.process(process);
    if (p.isPresent()) {
      jcmd(
          p.get().pid(), "VM.log", "output=file=" + gcLog(process), "what=gc", "decorators=uptime");
    }
  }

  Path gcLog(String process) {
    return cluster.directory().resolve(process + "-gc.log");
  }

  /** Where each TaskManager's GC log ends now: {@link #heapAfterGc} reads from there. */
  Map<String, Long> gcLogPositions() throws IOException {
    Map<String, Long> positions = new LinkedHashMap<>();
    for (int n = 1; n <= TASK_MANAGERS; n++) {
      Path log = gcLog("taskmanager-" + n);
      positions.put("taskmanager-" + n, Files.exists(log) ? Files.size(log) : 0L);
    }
    return positions;
  }

  /**
   * The most heap (MB) each TaskManager held right after a collection since {@code from} (its
   * {@link #gcLogPositions}), and the heap's size then; a TaskManager without a collection since
   * has none.
   */
  Map<String, long[]> heapAfterGc(Map<String, Long> from) throws IOException {
    Map<String, long[]> highest = new LinkedHashMap<>();
    for (Map.Entry<String, Long> tm : from.entrySet()) {
      Path log = gcLog(tm.getKey());
      if (!Files.exists(log)) {
        continue;
      }
      byte[] all = Files.readAllBytes(log);
      // A replacement's log starts again at 0 (its file recreated).
      int start = all.length >= tm.getValue() ? tm.getValue().intValue() : 0;
      String text = new String(all, start, all.length - start, StandardCharsets.UTF_8);
      for (String line : text.lines().toList()) {
        Matcher m = AFTER_GC.matcher(line);
        if (m.find()) {
          long after = Long.parseLong(m.group(2));
          long size = Long.parseLong(m.group(3));
          highest.merge(tm.getKey(), new long[] {after, size}, (a, b) -> a[0] >= b[0] ? a : b);
        }
      }
    }
    return highest;
  }

  /** The heap (MB) each TaskManager holds after a full collection now (live objects). */
  Map<String, Long> liveHeap() throws IOException {
    Map<String, Long> live = new LinkedHashMap<>();
    for (int n = 1; n <= TASK_MANAGERS; n++) {
      String name = "taskmanager-" + n;
      Optional<ProcessHandle> p = cluster.process(name);
      if (p.isEmpty()) {
        continue;
      }
      jcmd(p.get().pid(), "GC.run");
      Matcher used = HEAP_USED.matcher(jcmd(p.get().pid(), "GC.heap_info"));
      if (used.find()) {
        live.put(name, Long.parseLong(used.group(2)) / 1024);
      }
    }
    return live;
  }

  /**
   * The {@code top} classes by the bytes their live instances take in {@code process}'s heap (its
   * class histogram, after a full collection): "MB class" each.
   */
  List<String> heapHistogram(String process, int top) throws IOException {
    Optional<ProcessHandle> p = cluster.process(process);
    if (p.isEmpty()) {
      return List.of();
    }
    List<String> classes = new ArrayList<>();
    for (String line : jcmd(p.get().pid(), "GC.class_histogram").lines().toList()) {
      Matcher m = HISTOGRAM_LINE.matcher(line);
      if (m.find() && classes.size() < top) {
        classes.add(
            String.format(
                Locale.ROOT, "%.1f MB %s", Long.parseLong(m.group(1)) / 1048576.0, m.group(2)));
      }
    }
    return classes;
  }

  /** Bytes of RocksDB's working files on every TaskManager's disk (its instances' folders). */
  long rocksDbBytes() throws IOException {
    Path tmp = cluster.directory().resolve("tmp");
    if (!Files.isDirectory(tmp)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(tmp)) {
      return files
          .filter(f -> f.toString().contains("rocksdb") || f.toString().contains("_op_"))
          .filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException gone) {
                  return 0; // a file RocksDB deleted while this walked
                }
              })
          .sum();
    } catch (UncheckedIOException gone) {
      return -1; // a folder RocksDB deleted while this walked: unknown
    }
  }

  private static String jcmd(long pid, String... command) throws IOException {
    List<String> args = new ArrayList<>();
    args.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    args.add(Long.toString(pid));
    args.addAll(List.of(command));
    Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IOException("jcmd " + String.join(" ", command) + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    return out;
  }

  private JsonNode get(String path) throws IOException {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(cluster.restUrl() + path))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() >= 300) {
        throw new IOException(path + ": " + r.statusCode() + " " + r.body());
      }
      return Json.mapper().readTree(r.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** Stops the cluster's processes. */
  @Override
  public void close() {
    cluster.down();
  }
}
