package dev.weir.identity;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.v1.stub.SpannerStubSettings;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.JobClassLoader;
import java.io.Serializable;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.configuration.ConfigOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spanner clients of this process: one per connection setting, shared by every task that opens
 * the identity table with it, and closed (channels, sessions, threads) when the last of them
 * closes. A {@link Spanner} is made to be shared: each one holds a pool of gRPC channels and a
 * multiplexed session per database, and the job opens the table three times per parallel task.
 */
public final class SpannerClients {

  private static final Logger LOG = LoggerFactory.getLogger(SpannerClients.class);
  private static final String RELEASE_HOOK = "weir: stop the Spanner client's shared threads";

  /**
   * Threads the Spanner client library keeps in static fields, never stopped by {@link
   * Spanner#close()}: on a session cluster they would hold the job's class loader (and every class
   * in it) after the job ended there. Stopped when Flink releases that class loader.
   */
  private static final List<String[]> LIBRARY_EXECUTORS =
      List.of(
          new String[] {
            "com.google.cloud.spanner.MultiplexedSessionDatabaseClient", "MAINTAINER_SERVICE"
          },
          new String[] {"com.google.cloud.grpc.GcpManagedChannel", "SHARED_BACKGROUND_SERVICE"});

  /** Where the identity table is and how a task connects to it. */
  public record Settings(
      String project,
      String instance,
      String database,
      String emulatorHost,
      boolean builtInMetrics,
      Duration timeout)
      implements Serializable {

    /** From the job's options; fails naming the option that is missing. */
    public static Settings of(WeirConfig config) {
      return new Settings(
          required(config, IdentityOptions.SPANNER_PROJECT),
          required(config, IdentityOptions.SPANNER_INSTANCE),
          required(config, IdentityOptions.SPANNER_DATABASE),
          config.getOptional(IdentityOptions.SPANNER_EMULATOR_HOST).orElse(null),
          config.get(IdentityOptions.SPANNER_BUILT_IN_METRICS),
          config.get(IdentityOptions.SPANNER_TIMEOUT));
    }

    public DatabaseId databaseId() {
      return DatabaseId.of(project, instance, database);
    }

    SpannerOptions options() {
      SpannerOptions.Builder options =
          SpannerOptions.newBuilder()
              .setProjectId(project)
              // Client-side metrics go to Cloud Monitoring over channels of their own; the job
              // reports its own metrics through Flink. The client opens those channels even for
              // an emulator, where nothing can be exported.
              .setBuiltInMetricsEnabled(builtInMetrics)
              .setInterceptorProvider(() -> List.of(SpannerCalls.COUNTER));
      // Every lookup and commit gives up after this (the job then restarts from its checkpoint)
      // instead of holding the task, and its checkpoints, for the client's default of an hour.
      SpannerStubSettings.Builder calls = options.getSpannerStubSettingsBuilder();
      calls.commitSettings().setRetrySettings(within(calls.commitSettings().getRetrySettings()));
      calls
          .executeStreamingSqlSettings()
          .setRetrySettings(within(calls.executeStreamingSqlSettings().getRetrySettings()));
      if (emulatorHost != null) {
        options.setEmulatorHost(emulatorHost).setCredentials(NoCredentials.getInstance());
      }
      return options.build();
    }

    private RetrySettings within(RetrySettings defaults) {
      return defaults.toBuilder()
          .setTotalTimeoutDuration(timeout)
          .setInitialRpcTimeoutDuration(timeout)
          .setMaxRpcTimeoutDuration(timeout)
          .build();
    }
  }

  /** A task's use of a shared client; closing it closes the client when no other task uses it. */
  public static final class Lease implements AutoCloseable {
    private final Settings settings;
    private final Shared shared;
    private boolean closed;

    private Lease(Settings settings, Shared shared) {
      this.settings = settings;
      this.shared = shared;
    }

    /** The client of the identity table's database. */
    public DatabaseClient client() {
      return shared.spanner.getDatabaseClient(settings.databaseId());
    }

    @Override
    public void close() {
      synchronized (OPEN) {
        if (closed) {
          return;
        }
        closed = true;
        if (--shared.leases > 0) {
          return;
        }
        OPEN.remove(settings);
      }
      shared.spanner.close();
      LOG.info(
          "closed the Spanner client of project {} ({})", settings.project(), SpannerCalls.total());
    }
  }

  private static final class Shared {
    final Spanner spanner;
    int leases;

    Shared(Spanner spanner) {
      this.spanner = spanner;
    }
  }

  private static final Map<Settings, Shared> OPEN = new HashMap<>();

  private SpannerClients() {}

  /** A lease on the client for {@code settings}, opened now if no task holds one. */
  public static Lease lease(Settings settings) {
    synchronized (OPEN) {
      Shared shared = OPEN.computeIfAbsent(settings, s -> new Shared(s.options().getService()));
      shared.leases++;
      return new Lease(settings, shared);
    }
  }

  /** How many clients are open in this process (tests: none after the job has closed). */
  public static int open() {
    synchronized (OPEN) {
      return OPEN.size();
    }
  }

  /**
   * Stops the client library's static threads when Flink releases the job's class loader in this
   * process. Every task that may open a client registers it: the hook runs once per class loader.
   */
  public static void stopLibraryThreadsOnRelease(RuntimeContext context) {
    context.registerUserCodeClassLoaderReleaseHookIfAbsent(
        RELEASE_HOOK, SpannerClients::stopLibraryThreads);
  }

  /**
   * Stops the library's static executors, where weir runs in a job's own class loader; where it
   * runs on the application class loader (a MiniCluster, the tests, the CLI) other clients of the
   * process may still need them. Returns how many were stopped.
   */
  static int stopLibraryThreads() {
    if (!JobClassLoader.owns(SpannerClients.class)) {
      return 0;
    }
    int stopped = 0;
    for (String[] executor : LIBRARY_EXECUTORS) {
      try {
        Field field = Class.forName(executor[0]).getDeclaredField(executor[1]);
        field.setAccessible(true);
        ((ExecutorService) field.get(null)).shutdownNow();
        stopped++;
      } catch (ReflectiveOperationException | RuntimeException e) {
        LOG.warn(
            "cannot stop {}.{} of the Spanner client library ({}): its thread keeps the job's"
                + " class loader in this process",
            executor[0],
            executor[1],
            e.toString());
      }
    }
    if (stopped > 0) {
      LOG.info("stopped {} static threads of the Spanner client library with the job", stopped);
    }
    return stopped;
  }

  private static String required(WeirConfig config, ConfigOption<String> option) {
    return config
        .getOptional(option)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    option.key() + " is required when identity.store = spanner"));
  }
}
