package dev.weir.common.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

class JobRunnerTest {

  private static final WeirConfig CONFIG = WeirConfig.from(Map.of(), Map.of());

  @Test
  void aLocalRunCheckpointsToADirectoryNotToTheJobManagersMemory() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, CONFIG);
    String dir = env.getConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
    assertThat(dir).isNotNull().startsWith("file:");
    assertThat(Files.isDirectory(Path.of(URI.create(dir)))).isTrue();
  }

  @Test
  void aClustersCheckpointDirectoryIsKept() {
    Configuration cluster = new Configuration();
    cluster.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, "s3://bucket/checkpoints");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(cluster);
    JobRunner.configure(env, CONFIG);
    assertThat(env.getConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
        .isEqualTo("s3://bucket/checkpoints");
  }

  @Test
  void restartsAreBoundedSoAFailureThatCannotHealEndsTheJob() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, CONFIG);
    ReadableConfig c = env.getConfiguration();
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("exponential-delay");
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS))
        .isEqualTo(30);
    assertThat(
            c.get(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD))
        .isEqualTo(Duration.ofMinutes(10));

    StreamExecutionEnvironment other = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(other, WeirConfig.from(Map.of("restart.max-attempts", "3"), Map.of()));
    assertThat(
            other
                .getConfiguration()
                .get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS))
        .isEqualTo(3);
  }

  @Test
  void rocksDbBloomFiltersAreOnUnlessTheClusterSaysOtherwise() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, CONFIG);
    assertThat(env.getConfiguration().get(JobRunner.ROCKSDB_BLOOM_FILTER)).isTrue();

    Configuration cluster = new Configuration();
    cluster.set(JobRunner.ROCKSDB_BLOOM_FILTER, false);
    StreamExecutionEnvironment off = StreamExecutionEnvironment.getExecutionEnvironment(cluster);
    JobRunner.configure(off, CONFIG);
    assertThat(off.getConfiguration().get(JobRunner.ROCKSDB_BLOOM_FILTER)).isFalse();
  }

  @Test
  void aJobsOwnCheckpointIntervalAppliesUnlessOneIsGiven() {
    WeirJob quick =
        new WeirJob() {
          @Override
          public String name() {
            return "quick";
          }

          @Override
          public List<String> topics(WeirConfig config) {
            return List.of();
          }

          @Override
          public Duration defaultCheckpointInterval() {
            return Duration.ofSeconds(2);
          }

          @Override
          public void build(StreamExecutionEnvironment env, WeirConfig config) {}
        };
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, JobRunner.withJobDefaults(quick, CONFIG));
    assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(2_000);

    WeirConfig given = WeirConfig.from(Map.of("checkpoint.interval", "7 s"), Map.of());
    StreamExecutionEnvironment other = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(other, JobRunner.withJobDefaults(quick, given));
    assertThat(other.getCheckpointConfig().getCheckpointInterval()).isEqualTo(7_000);
  }
}
