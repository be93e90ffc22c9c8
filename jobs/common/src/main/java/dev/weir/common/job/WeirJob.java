package dev.weir.common.job;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.time.Duration;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A weir streaming job: a name, the topics it touches, what it prepares (migrations), and its
 * pipeline. Jobs register themselves in {@code META-INF/services/dev.weir.common.job.WeirJob} so
 * the CLI and the deployable jar find them by name.
 */
public interface WeirJob {

  /**
   * The job's name, e.g. {@code activity-feed}: used on the command line, in uids and in the DLQ.
   */
  String name();

  /** Topics the job reads or writes; created if missing before the job starts. */
  List<String> topics(WeirConfig config);

  /** Runs once before the pipeline starts, e.g. applying database migrations. */
  default void prepare(WeirConfig config) {}

  /** Runs once its {@link #topics} exist, to set what the job needs of them. */
  default void configureTopics(WeirConfig config) {}

  /** How often the job checkpoints when {@code checkpoint.interval} is not given. */
  default Duration defaultCheckpointInterval() {
    return WeirOptions.CHECKPOINT_INTERVAL.defaultValue();
  }

  /** Adds the job's sources, transforms and sinks to the environment. */
  void build(StreamExecutionEnvironment env, WeirConfig config);
}
