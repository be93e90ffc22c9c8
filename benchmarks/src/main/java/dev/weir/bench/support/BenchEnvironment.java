package dev.weir.bench.support;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.postgres.Migrations;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * What every benchmark asks of the local stack and of Flink, in one place: a side's own database,
 * the MiniCluster a job runs in, and the waits between the steps of a run (a job RUNNING, a count
 * reached, Elasticsearch idle).
 */
public final class BenchEnvironment {

  private BenchEnvironment() {}

  /** A benchmark side's own database on the local stack: recreated, migrated. */
  public static WeirConfig freshDatabase(LocalStack stack, Connections connections, String name) {
    stack.recreatePostgresDatabase(name);
    WeirConfig config =
        WeirConfig.from(Map.of(), connections.environment())
            .with(WeirOptions.POSTGRES_URL, connections.postgresJdbcUrl(name));
    Migrations.apply(config);
    return config;
  }

  /** A local MiniCluster in this JVM, Flink's defaults. */
  public static StreamExecutionEnvironment miniCluster() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }

  /**
   * A local MiniCluster configured as the manifests run the jobs: RocksDB, incremental, the memory
   * of one slot; its sources counted by {@link SourceProgress}.
   */
  public static StreamExecutionEnvironment miniClusterAsDeployed() {
    return miniClusterAsDeployed(new Configuration());
  }

  /** {@link #miniClusterAsDeployed()} with {@code conf}'s other options (the cluster's). */
  public static StreamExecutionEnvironment miniClusterAsDeployed(Configuration conf) {
    conf.setString("state.backend.type", "rocksdb");
    conf.setString("execution.checkpointing.incremental", "true");
    // The memory one slot has in the manifests (k8s/base). In a MiniCluster's
    // default managed memory RocksDB's write buffer manager flushes a memtable every few kB, and
    // those flushes, not the job, bound the rate.
    conf.setString("taskmanager.memory.managed.size", "640m");
    SourceProgress.register(conf);
    return StreamExecutionEnvironment.getExecutionEnvironment(conf);
  }

  /** Until the job is RUNNING: scheduled, its tasks deploying. */
  public static void awaitRunning(JobClient job) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (job.getJobStatus().get() != JobStatus.RUNNING) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the job is not RUNNING after a minute");
      }
      Thread.sleep(20);
    }
  }

  /** Until {@code count}, polled every 100 ms, reaches {@code expected}; three minutes at most. */
  public static void awaitCount(Callable<Long> count, long expected) throws Exception {
    try (CountTimeline timeline = new CountTimeline(count)) {
      timeline.await(expected, Duration.ofMinutes(3));
    }
  }

  /**
   * The consumer group of the job named {@code jobName} forgotten, so that its next run reads the
   * topics from the start.
   */
  public static void forgetOffsets(WeirConfig config, String jobName) throws Exception {
    try (var admin = KafkaClients.admin(config)) {
      admin.deleteConsumerGroups(List.of(DeploymentNames.groupId(jobName))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof GroupIdNotFoundException)) {
        throw e; // no group: no offsets committed, nothing to forget
      }
    }
  }

  /**
   * Waits (two minutes at most) until Elasticsearch has no merge running: each side's load starts
   * on an idle node, not paying for the segments the step before it left to merge (every load ends
   * with this wait in {@link IndexLoad#settle}; the raw bulk also waits for it, as it may follow
   * weir's price rounds).
   */
  public static void awaitMergesDone(SearchCluster es) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline
        && IndexWork.runningMerges(es.get("/_stats/merge").path("_all").path("total")) > 0) {
      Thread.sleep(200);
    }
  }

  /** The documents a search of {@code index} counts. */
  public static long count(SearchCluster es, String index) throws Exception {
    return es.count(index);
  }

  /** Every index whose name matches {@code pattern}, deleted. */
  public static void deleteIndices(SearchCluster es, String pattern) throws IOException {
    for (String index : es.indices(pattern)) {
      es.deleteIndex(index);
    }
  }
}
