package dev.weir.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A real Flink standalone session cluster on this machine: one JobManager and N TaskManagers, each
 * its own JVM process, assembled from Flink's jars on Maven Central (there is no flink-dist there).
 * Jobs are submitted through the REST API, as to any Flink cluster. The processes get the given
 * environment (the local stack's connection settings), as pods get a ConfigMap and a Secret.
 */
public final class FlinkCluster {

  public static final int DEFAULT_REST_PORT = 18081;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";

  /**
   * The ports the processes' Prometheus endpoints take, each the first free one: the JobManager
   * starts first (9249), then the TaskManagers; a second cluster's processes take the next ones.
   */
  public static final String METRICS_PORTS = "9249-9269";

  /** The reporter's line saying which port of {@link #METRICS_PORTS} a process took. */
  private static final String START_MARK = "=== weir cluster: starting";

  private static final Pattern METRICS_PORT =
      Pattern.compile("Started PrometheusReporter HTTP server on port (\\d+)");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TASK_MANAGER_ID = Pattern.compile("^taskmanager-(\\d+)-");

  private final StackSettings settings;
  private final Artifacts artifacts;
  private final int restPort;
  private final Path dir;

  /** The high-availability store, when the cluster runs with one; else null. */
  private final ZooKeeperService zookeeper;

  private final FlinkClusterSetup setup;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public FlinkCluster(StackSettings settings, int restPort) {
    this(settings, restPort, false);
  }

  /**
   * A cluster that, with {@code highAvailability}, keeps its leader, its submitted jobs and their
   * latest checkpoints in ZooKeeper (started with it, from Maven Central) and files: a killed
   * JobManager's replacement takes its jobs over from their last checkpoint, as on Kubernetes.
   */
  public FlinkCluster(StackSettings settings, int restPort, boolean highAvailability) {
    this(settings, restPort, highAvailability, Map.of());
  }

  /**
   * The same, with {@code configuration}'s Flink options written over the cluster's own (a
   * benchmark's cluster, configured as a deployment is).
   */
  public FlinkCluster(
      StackSettings settings,
      int restPort,
      boolean highAvailability,
      Map<String, String> configuration) {
    this.settings = settings;
    this.artifacts = new Artifacts(settings);
    this.restPort = restPort;
    this.zookeeper = highAvailability ? new ZooKeeperService(settings, artifacts) : null;
    // A second cluster (a test's, next to a developer's) keeps its files apart.
    this.dir =
        settings.home().resolve(restPort == DEFAULT_REST_PORT ? "flink" : "flink-" + restPort);
    this.setup =
        new FlinkClusterSetup(settings, artifacts, restPort, dir, zookeeper, configuration);
  }

  public String restUrl() {
    return "http://" + StackSettings.HOST + ":" + restPort;
  }

  /** Where the cluster keeps its configuration, logs, checkpoints and working directories. */
  public Path directory() {
    return dir;
  }

  /** A process of the cluster (jobmanager, taskmanager-1, ...), while it runs. */
  public Optional<ProcessHandle> process(String name) {
    return OsProcesses.readPid(pidFile(name)).flatMap(ProcessHandle::of);
  }

  /**
   * The deployable shaded jar of every job, as the build leaves it: {@code
   * jobs/dist/target/weir-jobs-<version>.jar} under the project root.
   */
  public static Path jobsJar(Path projectRoot) {
    Path target = projectRoot.resolve("jobs").resolve("dist").resolve("target");
    try (var files = Files.list(target)) {
      return files
          .filter(p -> p.getFileName().toString().matches("weir-jobs-.*\\.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new StackException(
                      "no weir-jobs-*.jar in " + target + ": build it (./mvnw package)"));
    } catch (IOException e) {
      throw new StackException("no " + target + ": build the jobs jar (./mvnw package)", e);
    }
  }

  /** What the cluster looks like now. */
  public record Status(
      boolean up, int taskManagers, int slotsTotal, int slotsAvailable, int jobsRunning) {}

  /**
   * Starts the JobManager and {@code taskManagers} TaskManagers if the cluster is not up, with the
   * given environment, and waits until every TaskManager has registered.
   */
  public Status up(int taskManagers, Map<String, String> env) {
    Status now = status();
    if (now.up()) {
      return now;
    }
    if (zookeeper != null) {
      zookeeper.start();
    }
    try {
      Files.createDirectories(dir.resolve("conf"));
      Files.writeString(dir.resolve("conf").resolve("config.yaml"), setup.configYaml());
      Files.writeString(dir.resolve("conf").resolve("log4j.properties"), FlinkClusterSetup.log4j());
      setup.installPrometheusReporter();
      // The local stack's password stays in its own file (WEIR_HOME), not in this one.
      Map<String, String> processEnv = new LinkedHashMap<>(env);
      processEnv.remove("PGPASSWORD");
      Files.createDirectories(dir.resolve("tmp"));
      Files.writeString(dir.resolve("env"), serialize(processEnv));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    startJobManager();
    for (int i = 1; i <= taskManagers; i++) {
      startTaskManager(i);
    }
    awaitTaskManagers(taskManagers);
    return status();
  }

  /**
   * Starts the JobManager (a replacement after a kill, for instance) and waits until its REST API
   * answers. With high availability, it takes over the jobs of the one before.
   */
  public void startJobManager() {
    Process jm =
        start(
            "jobmanager",
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
            "GET_JM_RESOURCE_PARAMS");
    OsProcesses.awaitReady(
        "Flink JobManager",
        START_TIMEOUT,
        log("jobmanager"),
        Optional.of(jm.toHandle()),
        () -> status().up());
  }

  /** Kills the JobManager with SIGKILL: no shutdown, its jobs' tasks left running. */
  public void killJobManager() {
    OsProcesses.readPid(pidFile("jobmanager"))
        .flatMap(ProcessHandle::of)
        .ifPresent(
            p -> {
              p.destroyForcibly();
              p.onExit().join();
            });
  }

  /** Starts TaskManager {@code n} (a replacement after a kill, for instance). */
  public void startTaskManager(int n) {
    deleteWorkingDirectories(n);
    start(
        "taskmanager-" + n,
        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
        "GET_TM_RESOURCE_PARAMS",
        // Named after its number (plus a start time: a replacement is a new TaskManager), so that
        // the REST API's taskmanager-id of a task says which process runs it.
        "taskmanager.resource-id=taskmanager-" + n + "-" + System.currentTimeMillis());
  }

  /**
   * Deletes what TaskManagers numbered {@code n} that no longer run left in their working
   * directories: a killed one cleans nothing up, and its cached job jars and RocksDB files are
   * gigabytes over a test run.
   */
  private void deleteWorkingDirectories(int n) {
    boolean running = OsProcesses.readPid(pidFile("taskmanager-" + n)).isPresent(); // alive only
    Path tmp = dir.resolve("tmp");
    if (running || !Files.isDirectory(tmp)) {
      return;
    }
    try (DirectoryStream<Path> left = Files.newDirectoryStream(tmp, "tm_taskmanager-" + n + "-*")) {
      for (Path d : left) {
        Archives.deleteRecursively(d);
      }
    } catch (IOException e) {
      throw new StackException(
          "Flink taskmanager-" + n + ": cannot delete what it left in " + tmp, e);
    }
  }

  /** The numbers of the TaskManagers that run some task of the job now. */
  public SortedSet<Integer> taskManagersRunning(String jobId) throws IOException {
    SortedSet<Integer> running = new TreeSet<>();
    for (JsonNode vertex : get("/jobs/" + jobId).path("vertices")) {
      for (JsonNode subtask :
          get("/jobs/" + jobId + "/vertices/" + vertex.path("id").asText()).path("subtasks")) {
        Matcher name = TASK_MANAGER_ID.matcher(subtask.path("taskmanager-id").asText());
        if (name.find() && "RUNNING".equals(subtask.path("status").asText())) {
          running.add(Integer.parseInt(name.group(1)));
        }
      }
    }
    return running;
  }

  /** What the JDK's tools see inside the cluster's processes. */
  public ClusterProcesses processes() {
    return new ClusterProcesses(dir);
  }

  /** Kills TaskManager {@code n} with SIGKILL: no shutdown, no goodbye to the JobManager. */
  public void killTaskManager(int n) {
    OsProcesses.readPid(pidFile("taskmanager-" + n))
        .flatMap(ProcessHandle::of)
        .ifPresent(
            p -> {
              p.destroyForcibly();
              p.onExit().join();
            });
  }

  /** Waits until {@code count} TaskManagers are registered. */
  public void awaitTaskManagers(int count) {
    OsProcesses.awaitReady(
        "Flink TaskManagers (" + count + ")",
        START_TIMEOUT,
        dir,
        Optional.empty(),
        () -> status().taskManagers() >= count);
  }

  /**
   * The Prometheus endpoint ({@code http://127.0.0.1:<port>/metrics}) of each running process of
   * the cluster, by process name (jobmanager, taskmanager-1, ...), as its log says it started it.
   */
  public Map<String, URI> metricsEndpoints() throws IOException {
    Map<String, URI> endpoints = new LinkedHashMap<>();
    try (var files = Files.list(dir)) {
      for (Path pidFile : files.filter(p -> p.toString().endsWith(".pid")).sorted().toList()) {
        String process = pidFile.getFileName().toString().replace(".pid", "");
        if (OsProcesses.readPid(pidFile).flatMap(ProcessHandle::of).isEmpty()) {
          continue;
        }
        // The log is appended to by each start of the process: only what follows the last start
        // is the running one's (a replacement may not have started its reporter yet).
        String port = null;
        for (String line : Files.readAllLines(log(process), StandardCharsets.UTF_8)) {
          Matcher started = METRICS_PORT.matcher(line);
          if (line.startsWith(START_MARK)) {
            port = null;
          } else if (started.find()) {
            port = started.group(1);
          }
        }
        if (port != null) {
          endpoints.put(
              process, URI.create("http://" + StackSettings.HOST + ":" + port + "/metrics"));
        }
      }
    }
    return endpoints;
  }

  /** Stops every process of the cluster. */
  public void down() {
    try (var pids = Files.list(dir)) {
      for (Path pid : pids.filter(p -> p.toString().endsWith(".pid")).toList()) {
        OsProcesses.readPid(pid).ifPresent(p -> OsProcesses.stop(p, Duration.ofSeconds(20)));
        Files.deleteIfExists(pid);
      }
    } catch (NoSuchFileException e) {
      // never started
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (zookeeper != null) {
      zookeeper.stop();
    }
  }

  public Status status() {
    try {
      JsonNode o = get("/overview");
      return new Status(
          true,
          o.path("taskmanagers").asInt(),
          o.path("slots-total").asInt(),
          o.path("slots-available").asInt(),
          o.path("jobs-running").asInt());
    } catch (IOException e) {
      return new Status(false, 0, 0, 0, 0);
    }
  }

  /**
   * Uploads the jar and runs its entry class with these arguments; returns the job id. With a
   * savepoint path, the job starts from it.
   */
  public String submit(
      Path jar, String entryClass, List<String> args, Integer parallelism, String savepoint)
      throws IOException {
    String boundary = "weir-" + UUID.randomUUID();
    byte[] head =
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                + jar.getFileName()
                + "\"\r\nContent-Type: application/java-archive\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8);
    byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
    HttpRequest upload =
        HttpRequest.newBuilder(URI.create(restUrl() + "/jars/upload"))
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(
                HttpRequest.BodyPublishers.concat(
                    HttpRequest.BodyPublishers.ofByteArray(head),
                    HttpRequest.BodyPublishers.ofFile(jar),
                    HttpRequest.BodyPublishers.ofByteArray(tail)))
            .build();
    JsonNode uploaded = send(upload);
    String jarId = Path.of(uploaded.path("filename").asText()).getFileName().toString();
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("entryClass", entryClass);
    run.put("programArgsList", args);
    if (parallelism != null) {
      run.put("parallelism", parallelism);
    }
    if (savepoint != null) {
      run.put("savepointPath", savepoint);
    }
    try {
      return post("/jars/" + jarId + "/run", run).path("jobid").asText();
    } finally {
      deleteUpload(jarId);
    }
  }

  /**
   * Deletes an uploaded jar: a submitted job has its own copy in the blob store, and each upload is
   * the whole jar (over a hundred MB), dozens of them in a test run. Left in place if the request
   * fails: the upload directory goes with the cluster's.
   */
  private void deleteUpload(String jarId) {
    try {
      send(HttpRequest.newBuilder(URI.create(restUrl() + "/jars/" + jarId)).DELETE().build());
    } catch (IOException e) {
      // nothing lost: see above
    }
  }

  /**
   * The job's state (RUNNING, RESTARTING, FAILED, ...), whether all its tasks run, and when it last
   * began to restart (epoch ms; 0 if never).
   */
  public record JobState(String state, boolean allTasksRunning, long lastRestart) {}

  public JobState job(String jobId) throws IOException {
    JsonNode job = get("/jobs/" + jobId);
    boolean running = job.path("vertices").size() > 0;
    for (JsonNode v : job.path("vertices")) {
      running &=
          "RUNNING".equals(v.path("status").asText())
              || "FINISHED".equals(v.path("status").asText());
    }
    return new JobState(
        job.path("state").asText(), running, job.path("timestamps").path("RESTARTING").asLong());
  }

  /** A job the cluster knows (running or ended), as its overview lists it. */
  public record JobSummary(String id, String name, String state, long startTime) {}

  /** Every job the cluster knows, running or ended, the newest first. */
  public List<JobSummary> jobs() throws IOException {
    List<JobSummary> jobs = new ArrayList<>();
    for (JsonNode j : get("/jobs/overview").path("jobs")) {
      jobs.add(
          new JobSummary(
              j.path("jid").asText(),
              j.path("name").asText(),
              j.path("state").asText(),
              j.path("start-time").asLong()));
    }
    jobs.sort(Comparator.comparingLong(JobSummary::startTime).reversed());
    return jobs;
  }

  /** The settings the job was built with, as it published them (its global job parameters). */
  public Map<String, String> jobSettings(String jobId) throws IOException {
    Map<String, String> settings = new LinkedHashMap<>();
    get("/jobs/" + jobId + "/config")
        .path("execution-config")
        .path("user-config")
        .fields()
        .forEachRemaining(e -> settings.put(e.getKey(), e.getValue().asText()));
    return settings;
  }

  /** Each of the job's vertices (by name) and how many parallel tasks it runs. */
  public Map<String, Integer> vertexParallelism(String jobId) throws IOException {
    Map<String, Integer> parallelism = new LinkedHashMap<>();
    for (JsonNode v : get("/jobs/" + jobId).path("vertices")) {
      parallelism.put(v.path("name").asText(), v.path("parallelism").asInt());
    }
    return parallelism;
  }

  /** Checkpoints of the job completed so far. */
  public long completedCheckpoints(String jobId) throws IOException {
    return get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
  }

  /** The savepoint or checkpoint the job was last restored from, if any. */
  public Optional<String> restoredFrom(String jobId) throws IOException {
    JsonNode restored = get("/jobs/" + jobId + "/checkpoints").path("latest").path("restored");
    return restored.hasNonNull("external_path")
        ? Optional.of(restored.get("external_path").asText())
        : Optional.empty();
  }

  /** The savepoint the job last took or stopped with, if any. */
  public Optional<String> savepointOf(String jobId) throws IOException {
    JsonNode savepoint = get("/jobs/" + jobId + "/checkpoints").path("latest").path("savepoint");
    return savepoint.hasNonNull("external_path")
        ? Optional.of(savepoint.get("external_path").asText())
        : Optional.empty();
  }

  /** Stops the job with a savepoint (into the cluster's savepoint folder); returns its path. */
  public String stopWithSavepoint(String jobId) throws IOException {
    String trigger =
        post("/jobs/" + jobId + "/stop", Map.of("drain", false)).path("request-id").asText();
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode s = get("/jobs/" + jobId + "/savepoints/" + trigger);
      if ("COMPLETED".equals(s.path("status").path("id").asText())) {
        JsonNode op = s.path("operation");
        if (op.has("failure-cause")) {
          throw new IOException("savepoint of " + jobId + " failed: " + op.path("failure-cause"));
        }
        return op.path("location").asText();
      }
      OsProcesses.sleep(Duration.ofMillis(250));
    }
    throw new IOException("savepoint of " + jobId + " did not complete within 2 minutes");
  }

  public void cancel(String jobId) throws IOException {
    send(
        HttpRequest.newBuilder(URI.create(restUrl() + "/jobs/" + jobId))
            .method("PATCH", HttpRequest.BodyPublishers.noBody())
            .build());
  }

  private Process start(
      String name, String mainClass, String resourceParams, String... dynamicProperties) {
    List<Path> classPath = setup.classPath();
    String cp = classPath.stream().map(Path::toString).collect(Collectors.joining(":"));
    Path conf = dir.resolve("conf");
    // The JVM sizes and the dynamic memory settings Flink's own start scripts compute.
    List<String> results =
        OsProcesses.capture(
                settings.java(
                    "-cp",
                    cp,
                    "org.apache.flink.runtime.util.bash.BashJavaUtils",
                    resourceParams,
                    "--configDir",
                    conf.toString()))
            .lines()
            .filter(l -> l.startsWith(RESULT_PREFIX))
            .map(l -> l.substring(RESULT_PREFIX.length()).trim())
            .toList();
    if (results.size() < 2) {
      throw new StackException(
          "Flink " + name + ": cannot compute its memory settings: " + results);
    }
    List<String> command = settings.java(results.get(0).split("\\s+"));
    command.addAll(FlinkClusterSetup.JAVA_17_OPENS);
    command.add("-Dlog.file=" + log(name));
    command.add("-Dlog4j.configurationFile=file:" + conf.resolve("log4j.properties"));
    command.addAll(List.of("-cp", cp, mainClass, "--configDir", conf.toString()));
    command.addAll(Arrays.asList(results.get(1).split("\\s+")));
    for (String property : dynamicProperties) {
      command.addAll(List.of("-D", property));
    }
    Map<String, String> env = deserialize(dir.resolve("env"));
    env.put("WEIR_HOME", settings.home().toString());
    env.put("FLINK_PLUGINS_DIR", dir.resolve("plugins").toString());
    try {
      Files.writeString(
          log(name),
          START_MARK + " " + name + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      Process process = OsProcesses.startDetached(command, dir, env, log(name));
      Files.writeString(pidFile(name), Long.toString(process.pid()));
      return process;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path log(String process) {
    return dir.resolve(process + ".log");
  }

  private Path pidFile(String process) {
    return dir.resolve(process + ".pid");
  }

  private JsonNode get(String path) throws IOException {
    return send(HttpRequest.newBuilder(URI.create(restUrl() + path)).GET().build());
  }

  private JsonNode post(String path, Object body) throws IOException {
    return send(
        HttpRequest.newBuilder(URI.create(restUrl() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
            .build());
  }

  private JsonNode send(HttpRequest request) throws IOException {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(request, (k, v) -> true)
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() >= 300) {
        throw new IOException(
            request.method()
                + " "
                + request.uri()
                + ": "
                + response.statusCode()
                + " "
                + response.body());
      }
      return response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static String serialize(Map<String, String> env) throws IOException {
    return JSON.writeValueAsString(env);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> deserialize(Path file) {
    try {
      return new LinkedHashMap<>(JSON.readValue(file.toFile(), Map.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
