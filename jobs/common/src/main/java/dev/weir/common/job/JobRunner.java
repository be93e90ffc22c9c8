package dev.weir.common.job;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.JdbcDrivers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

/** Configures an environment the same way for every job, wherever it runs. */
public final class JobRunner {

  private JobRunner() {}

  /** Every job on the class path, by name. */
  public static Map<String, WeirJob> jobs() {
    Map<String, WeirJob> jobs = new TreeMap<>();
    ServiceLoader.load(WeirJob.class).forEach(j -> jobs.put(j.name(), j));
    return jobs;
  }

  public static WeirJob job(String name) {
    WeirJob job = jobs().get(name);
    if (job == null) {
      throw new IllegalArgumentException(
          "no job named '" + name + "'; jobs: " + String.join(", ", jobs().keySet()));
    }
    return job;
  }

  /**
   * Checkpointing (exactly-once), restarts and parallelism from the job's configuration; every
   * operator must have its own uid.
   */
  /** Flink's option for bloom filters in RocksDB (its module is the cluster's, not the jobs'). */
  static final ConfigOption<Boolean> ROCKSDB_BLOOM_FILTER =
      ConfigOptions.key("state.backend.rocksdb.use-bloom-filter").booleanType().defaultValue(false);

  public static void configure(StreamExecutionEnvironment env, WeirConfig config) {
    env.setParallelism(config.get(WeirOptions.PARALLELISM));
    configureAllButParallelism(env, config);
  }

  private static void configureAllButParallelism(
      StreamExecutionEnvironment env, WeirConfig config) {
    env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
    env.enableCheckpointing(
        config.get(WeirOptions.CHECKPOINT_INTERVAL).toMillis(), CheckpointingMode.EXACTLY_ONCE);
    env.getCheckpointConfig()
        .setMinPauseBetweenCheckpoints(config.get(WeirOptions.CHECKPOINT_INTERVAL).toMillis() / 2);
    Configuration options = new Configuration();
    options.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
    options.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
        Duration.ofSeconds(1));
    options.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
        Duration.ofSeconds(30));
    // After a TaskManager dies, every attempt fails at once until its replacement registers (a
    // few seconds for a fresh JVM). Flink's ×1.5 spreads the attempts so far apart that a
    // replacement a moment late waits seconds more; ×1.2 keeps the gaps short through the first
    // seconds and still reaches the cap for a failure that persists.
    options.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, 1.2);
    // A failure that cannot heal (a record a sink always refuses, a topic deleted under the job)
    // must end the job with its cause, not restart it for ever.
    options.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS,
        config.get(WeirOptions.RESTART_MAX_ATTEMPTS));
    options.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
        config.get(WeirOptions.RESTART_RESET_AFTER));
    // Savepoints map state to operators by uid: a job that left one to Flink's generator would
    // lose that operator's state after a rebuild that changes the graph, so it must not start.
    options.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
    if (env.getConfiguration().getOptional(ROCKSDB_BLOOM_FILTER).isEmpty()) {
      // Bloom filters in RocksDB's tables, off in Flink by default: a lookup of a key that is not
      // there (each new event id in activity-feed's seen ids, each new distinct id in identity's
      // cache) then skips every table that cannot hold it.
      options.set(ROCKSDB_BLOOM_FILTER, true);
    }
    if (env.getConfiguration().getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).isEmpty()) {
      // No checkpoint directory: a local MiniCluster (a cluster's configuration names one). Flink
      // would keep checkpoints in the JobManager's memory, which refuses more than 5 MB of state:
      // every checkpoint of a job with more (search-index holds each product's description) fails,
      // and the job restarts from its beginning, over and over.
      options.set(
          CheckpointingOptions.CHECKPOINTS_DIRECTORY, localCheckpoints().toUri().toString());
    }
    env.configure(options);
    // The job's settings (they hold no secret) on its page of Flink's REST API and web UI, where
    // `weir documents apply` reads a running deployment's.
    env.getConfig().setGlobalJobParameters(Configuration.fromMap(config.asMap()));
    registerJsonValueTypes(env);
  }

  /**
   * Where a local run keeps its checkpoints: a directory of its own under the temp directory,
   * removed when the JVM exits (a MiniCluster's job cannot be resumed from it by a later process
   * anyway).
   */
  private static Path localCheckpoints() {
    try {
      Path base = Path.of(System.getProperty("java.io.tmpdir"), "weir-checkpoints");
      Files.createDirectories(base);
      Path run = Files.createTempDirectory(base, "run-");
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> FileUtils.deleteDirectoryQuietly(run.toFile()),
                  "weir-remove-local-checkpoints"));
      return run;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a local checkpoint directory", e);
    }
  }

  /**
   * Free-form JSON (event properties, details) is kept out of Kryo by {@code KryoFree.pojoOf}; a
   * type built without it sends its maps of these classes through Kryo, and registered, Kryo writes
   * a small id instead of each class name for every value.
   */
  private static void registerJsonValueTypes(StreamExecutionEnvironment env) {
    for (Class<?> type :
        List.of(
            HashMap.class,
            LinkedHashMap.class,
            ArrayList.class,
            String.class,
            Integer.class,
            Long.class,
            Double.class,
            Boolean.class,
            BigInteger.class,
            BigDecimal.class)) {
      env.getConfig().getSerializerConfig().registerKryoType(type);
    }
  }

  /** Prepares, creates missing topics, builds and submits; returns without waiting for the job. */
  public static JobClient start(WeirJob job, StreamExecutionEnvironment env, WeirConfig given)
      throws Exception {
    WeirConfig config = withJobDefaults(job, given);
    configure(env, config);
    prepareAndBuild(job, env, config);
    return env.executeAsync("weir " + job.name());
  }

  /** {@code config} with the job's own defaults for what it does not give. */
  static WeirConfig withJobDefaults(WeirJob job, WeirConfig config) {
    return config.getOptional(WeirOptions.CHECKPOINT_INTERVAL).isPresent()
        ? config
        : config.with(
            WeirOptions.CHECKPOINT_INTERVAL, job.defaultCheckpointInterval().toMillis() + " ms");
  }

  private static void prepareAndBuild(
      WeirJob job, StreamExecutionEnvironment env, WeirConfig config) {
    job.prepare(config);
    List<String> topics = job.topics(config);
    KafkaTopics.createTopicsIfMissing(config, topics, 2);
    job.configureTopics(config);
    String dlq = config.get(WeirOptions.DLQ_TOPIC);
    if (topics.contains(dlq)) {
      KafkaTopics.allowRecordsOf(config, dlq, DeadLetters.maxDeadLetterBytes());
    }
    job.build(env, config);
  }

  /** The entry point of the deployable jar: {@code --job <name>} plus the job's options. */
  public static void main(String[] args) throws Exception {
    WeirConfig config = WeirConfig.fromArgs(args);
    String name = config.asMap().get("job");
    if (name == null) {
      throw new IllegalArgumentException(
          "--job <name> is required; jobs: " + String.join(", ", jobs().keySet()));
    }
    WeirJob job = job(name);
    config = withJobDefaults(job, config);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    // On a cluster the parallelism is the deployment's (a FlinkDeployment's job.parallelism, the
    // REST submission's) unless --parallelism is given.
    config.getOptional(WeirOptions.PARALLELISM).ifPresent(env::setParallelism);
    configureAllButParallelism(env, config);
    try {
      prepareAndBuild(job, env, config);
      env.execute("weir " + job.name());
    } finally {
      // main runs in the JobManager of a session cluster, in a class loader of its own: the
      // migrations' driver must not keep it alive after the submission.
      JdbcDrivers.deregister();
    }
  }
}
