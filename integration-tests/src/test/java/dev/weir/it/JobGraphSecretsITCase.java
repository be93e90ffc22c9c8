package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.job.WeirJob;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Flink serializes a job's graph (its sources, sinks and functions) and, with high availability,
 * keeps it in the HA store: a password in it would be readable by anyone who reads that store. Each
 * process reads the passwords itself, from its environment or a secret file.
 */
@ExtendWith(LocalStackExtension.class)
class JobGraphSecretsITCase {

  /** Kafka's and Elasticsearch's (building connects to neither); PostgreSQL's is the stack's. */
  private static final Map<String, String> SECRETS =
      Map.of("KAFKA_PASSWORD", "kafka-secret-4711", "ELASTICSEARCH_PASSWORD", "es-secret-4711");

  static Iterable<String> streamingJobs() {
    // backfill is left out: planning its splits reads the copy (it connects while it builds);
    // BackfillITCase checks its graph.
    return JobRunner.jobs().keySet().stream().filter(name -> !name.equals("backfill")).toList();
  }

  @ParameterizedTest
  @MethodSource("streamingJobs")
  void noPasswordIsInTheJobGraph(String name) throws Exception {
    // Every client authenticates, so each one that could carry a password is in the graph.
    // search-index and cdc-catalog read the source database's catalog as they build.
    Map<String, String> environment =
        new HashMap<>(LocalStackExtension.connections().environment());
    environment.putAll(SECRETS);
    WeirConfig config =
        TestDatabases.withFreshCatalog(
                WeirConfig.from(Map.of(), environment), "it.secrets", "graph")
            .with(WeirOptions.KAFKA_SECURITY_PROTOCOL, "SASL_SSL")
            .with(WeirOptions.KAFKA_SASL_USERNAME, "weir")
            .with(WeirOptions.ELASTICSEARCH_USERNAME, "weir");
    String serialized = serializedGraph(JobRunner.jobs().get(name), config);

    assertThat(serialized).as("the graph's size").hasSizeGreaterThan(10_000);
    SECRETS.forEach(
        (variable, password) ->
            assertThat(serialized).as(variable + " in the job graph").doesNotContain(password));
    assertThat(serialized)
        .as("PGPASSWORD in the job graph")
        .doesNotContain(config.postgresPassword());
  }

  /** The job graph {@code job} builds, as Flink ships it (Java serialization), byte for char. */
  static String serializedGraph(WeirJob job, WeirConfig config) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, config);
    job.build(env, config);
    JobGraph graph = env.getStreamGraph().getJobGraph();
    return new String(InstantiationUtil.serializeObject(graph), StandardCharsets.ISO_8859_1);
  }
}
