package dev.weir.stack;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Google's Cloud Spanner emulator, where it is installed (it is not on Maven Central: it comes with
 * the Google Cloud CLI), with an instance and the identity table's database created from {@code
 * schemas/spanner/identity_mapping.sql}. It keeps everything in memory: a restart starts from an
 * empty database, which {@link #start()} creates again.
 */
public final class SpannerEmulatorService implements LocalService {

  public static final String PROJECT = "weir-local";
  public static final String INSTANCE = "weir";
  public static final String DATABASE = "identity";

  /** What to do where it is missing. */
  public static final String HOW_TO_INSTALL =
      "apt-get install google-cloud-cli-spanner-emulator (Google Cloud's apt repository), or"
          + " gcloud components install cloud-spanner-emulator";

  private static final String DDL = "weir/schemas/spanner/identity_mapping.sql";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final StackSettings settings;
  private final Path dir;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  SpannerEmulatorService(StackSettings settings) {
    this.settings = settings;
    this.dir = settings.home().resolve("spanner");
  }

  @Override
  public String name() {
    return "Spanner emulator";
  }

  @Override
  public int port() {
    return settings.spannerPort();
  }

  @Override
  public String address() {
    return StackSettings.HOST + ":" + port();
  }

  @Override
  public Path log() {
    return dir.resolve("emulator.log");
  }

  /** Whether the emulator is installed on this machine. */
  public boolean installed() {
    return gateway().isPresent();
  }

  /**
   * The variables {@code stack.env} gets: the Spanner client libraries (and the identity job) read
   * SPANNER_EMULATOR_HOST; the job reads the others as spanner.project, .instance, .database.
   */
  public Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("SPANNER_EMULATOR_HOST", address());
    env.put("SPANNER_PROJECT", PROJECT);
    env.put("SPANNER_INSTANCE", INSTANCE);
    env.put("SPANNER_DATABASE", DATABASE);
    return env;
  }

  @Override
  public boolean isUp() {
    return OsProcesses.portOpen(port()) && holdsItsPort();
  }

  @Override
  public boolean start() {
    Path gateway =
        gateway()
            .orElseThrow(() -> new StackException(name() + " is not installed: " + HOW_TO_INSTALL));
    boolean started = false;
    if (!isUp()) {
      for (int p : new int[] {port(), settings.spannerHttpPort()}) {
        if (OsProcesses.portOpen(p)) {
          throw new StackException(
              name()
                  + ": port "
                  + p
                  + " is taken by a process this stack did not start (set WEIR_SPANNER_PORT to"
                  + " use another port; the REST gateway takes it + 10)");
        }
      }
      launch(gateway);
      started = true;
    }
    createDatabase();
    return started;
  }

  private void launch(Path gateway) {
    try {
      Files.createDirectories(dir);
      // gateway_main serves REST on the HTTP port and starts emulator_main, its child, on the
      // gRPC port; stopping the gateway's process tree stops both.
      Process process =
          OsProcesses.startDetached(
              List.of(
                  gateway.toString(),
                  "--hostname",
                  StackSettings.HOST,
                  "--grpc_port",
                  Integer.toString(port()),
                  "--http_port",
                  Integer.toString(settings.spannerHttpPort())),
              dir,
              Map.of(),
              log());
      Files.writeString(pidFile(), Long.toString(process.pid()));
      OsProcesses.awaitReady(
          name(),
          START_TIMEOUT,
          log(),
          Optional.of(process.toHandle()),
          () -> isUp() && restAnswers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The instance and the identity table's database, unless they exist. */
  private void createDatabase() {
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("instanceId", INSTANCE);
    instance.put(
        "instance",
        Map.of("config", "emulator-config", "displayName", "weir local", "nodeCount", 1));
    created(post(projectPath() + "/instances", instance), "instance " + INSTANCE);
    Map<String, Object> database = new LinkedHashMap<>();
    database.put("createStatement", "CREATE DATABASE `" + DATABASE + "`");
    database.put("extraStatements", ddl());
    created(
        post(projectPath() + "/instances/" + INSTANCE + "/databases", database),
        "database " + DATABASE);
  }

  private void created(HttpResponse<String> response, String what) {
    // 409: it exists already (the emulator was up before this start).
    if (response.statusCode() != 200 && response.statusCode() != 409) {
      throw new StackException(
          name()
              + ": cannot create the "
              + what
              + ": "
              + response.statusCode()
              + " "
              + response.body());
    }
  }

  /** The statements of the identity table's DDL file, without its comments. */
  static List<String> ddl() {
    try (InputStream in = SpannerEmulatorService.class.getClassLoader().getResourceAsStream(DDL)) {
      if (in == null) {
        throw new StackException("no " + DDL + " on the class path (the weir-schemas jar)");
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      String code =
          String.join("\n", text.lines().filter(l -> !l.trim().startsWith("--")).toList());
      return Arrays.stream(code.split(";")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Optional<Long> pid() {
    return OsProcesses.readPid(pidFile());
  }

  @Override
  public void stop() {
    pid().ifPresent(p -> OsProcesses.stop(p, Duration.ofSeconds(30)));
    try {
      Files.deleteIfExists(pidFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path pidFile() {
    return dir.resolve("emulator.pid");
  }

  private String projectPath() {
    return "/v1/projects/" + PROJECT;
  }

  /**
   * The emulator's gateway: from the Debian package, or in the folder of the Google Cloud CLI on
   * the PATH ({@code gcloud components install cloud-spanner-emulator}).
   */
  static Optional<Path> gateway() {
    List<Path> sdks =
        new ArrayList<>(
            List.of(
                Path.of("/usr/lib/google-cloud-sdk"),
                Path.of("/usr/share/google-cloud-sdk"),
                Path.of("/opt/google-cloud-sdk"),
                Path.of(System.getProperty("user.home"), "google-cloud-sdk")));
    String path = System.getenv("PATH");
    if (path != null) {
      for (String folder : path.split(":")) {
        Path gcloud = Path.of(folder).resolve("gcloud");
        if (Files.isExecutable(gcloud)) {
          try {
            sdks.add(0, gcloud.toRealPath().getParent().getParent());
          } catch (IOException e) {
            // a broken link: not an SDK
          }
        }
      }
    }
    return sdks.stream()
        .map(sdk -> sdk.resolve("bin/cloud_spanner_emulator/gateway_main"))
        .filter(Files::isExecutable)
        .findFirst();
  }

  private HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  private HttpResponse<String> post(String path, Object body) {
    try {
      return send(
          HttpRequest.newBuilder(uri(path))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private boolean restAnswers() {
    try {
      return get(projectPath() + "/instances").statusCode() == 200;
    } catch (StackException e) {
      return false;
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(
          request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new StackException(name() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted", e);
    }
  }

  private URI uri(String path) {
    return URI.create("http://" + StackSettings.HOST + ":" + settings.spannerHttpPort() + path);
  }
}
