package dev.weir.common.kafka;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.util.regex.Pattern;

/**
 * The names a job's deployment takes on its Kafka cluster: its consumer group and the prefixes of
 * its exactly-once sinks' transactional ids.
 */
public final class DeploymentNames {

  private DeploymentNames() {}

  /**
   * The consumer group a job's sources commit their offsets to (for monitoring; a restore starts
   * from the checkpoint's offsets, a fresh start from the group's), for the job's only deployment.
   */
  public static String groupId(String job) {
    return "weir-" + job;
  }

  /** The same, for the deployment {@code config} names ({@link #deploymentName}). */
  public static String groupId(WeirConfig config, String job) {
    return deploymentName(config, job);
  }

  private static final Pattern DEPLOYMENT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /**
   * The name of this deployment of {@code job} on its Kafka cluster: {@code weir-<job>}, and with
   * {@code deployment.id} set, {@code weir-<job>-<deployment.id>}. Its consumer group and the
   * prefix of every transactional id of its exactly-once sinks start with it, so two deployments of
   * one job on one broker, told apart by their deployment ids, never fence each other's producers.
   * Unset, the names are those of weir before the option: a job upgraded without it keeps its
   * transactions. A generation of the deployment ({@link WeirOptions#GENERATION}) adds its own.
   */
  public static String deploymentName(WeirConfig config, String job) {
    return deploymentOf(config, job)
        + config.getOptional(WeirOptions.GENERATION).map(g -> "-" + g).orElse("");
  }

  private static String deploymentOf(WeirConfig config, String job) {
    return config
        .getOptional(WeirOptions.DEPLOYMENT_ID)
        .map(
            id -> {
              if (!DEPLOYMENT_ID.matcher(id).matches()) {
                throw new IllegalArgumentException(
                    "deployment.id '"
                        + id
                        + "': letters, digits, '.', '_' and '-' (not first), at most 64");
              }
              return "weir-" + job + "-" + id;
            })
        .orElse("weir-" + job);
  }

  /**
   * The transactional-id prefix of one exactly-once sink of a job: {@link #deploymentName}, then
   * the sink's name ({@code enriched}, {@code dlq}; empty for a job's only sink).
   */
  public static String transactionalIdPrefix(WeirConfig config, String job, String sink) {
    String deployment = deploymentName(config, job);
    return sink.isEmpty() ? deployment : deployment + "-" + sink;
  }
}
