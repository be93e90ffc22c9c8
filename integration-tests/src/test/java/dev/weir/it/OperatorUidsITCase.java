package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.backfill.BackfillOptions;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.job.WeirJob;
import dev.weir.documents.DocumentOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A savepoint restores an operator's state into the operator with the same uid. These uids are what
 * a rebuilt jar must keep for an upgrade from a savepoint to carry the state over.
 */
@ExtendWith(LocalStackExtension.class)
class OperatorUidsITCase {

  /** What {@code operator-uids.txt} must say; a changed line means savepoints no longer map. */
  @Test
  void everyJobsOperatorUidsAreTheRecordedOnes() throws IOException {
    List<String> uids = new ArrayList<>();
    for (WeirJob job : JobRunner.jobs().values()) {
      if (job.name().equals("backfill")) {
        continue; // bounded, never restored from a savepoint; planning its splits reads the copy
      }
      for (StreamNode node : streamGraph(job)) {
        uids.add(job.name() + " " + node.getTransformationUID());
      }
    }
    assertThat(uids)
        .as(
            "operator uids; if one changed on purpose, the job needs"
                + " --allowNonRestoredState or a state migration: see docs/operations.md")
        .containsExactlyInAnyOrderElementsOf(recorded());
  }

  /**
   * Kryo copies every record between chained operators by reflection and ties state to its own
   * format: the types a job's operators emit have serializers of their own ({@code KryoFree}).
   */
  @Test
  void noJobHandsItsRecordsToKryo() {
    List<String> kryo = new ArrayList<>();
    for (WeirJob job : JobRunner.jobs().values()) {
      if (job.name().equals("backfill")) {
        continue; // planning its splits reads the copy; it keeps no state
      }
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
      JobRunner.configure(env, config());
      job.build(env, config());
      env.getTransformations()
          .forEach(
              t ->
                  t.getTransitivePredecessors()
                      .forEach(
                          p -> {
                            if (p.getOutputType().toString().contains("GenericType")) {
                              kryo.add(job.name() + " " + p.getName() + ": " + p.getOutputType());
                            }
                          }));
    }
    assertThat(kryo.stream().distinct().toList())
        // Known and kept: identity's table writes (a side output to the table's sink, never in
        // state; one per row that really changed) are immutable-keyed records, not POJOs.
        .containsExactlyInAnyOrder(
            "identity identity table: GenericType<dev.weir.identity.IdentityRecord>",
            "identity SideOutput: GenericType<dev.weir.identity.IdentityRecord>");
  }

  @Test
  void anOperatorWithoutAUidStopsTheJobFromBuilding() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, config());
    env.fromData(1, 2, 3).uid("numbers").map(n -> n + 1).print().uid("print");
    assertThatThrownBy(env::getStreamGraph)
        .hasMessageContaining("Auto generated UIDs have been disabled");
  }

  private static List<StreamNode> streamGraph(WeirJob job) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, config());
    job.build(env, config());
    return new ArrayList<>(env.getStreamGraph().getStreamNodes());
  }

  private static WeirConfig config;

  /**
   * The default configuration, but for the catalog: search-index and cdc-catalog plan their
   * document (the bundled products definition) against the source database's catalog as they build.
   */
  private static WeirConfig config() {
    if (config == null) {
      try {
        WeirConfig base = LocalStackExtension.config().with(BackfillOptions.TARGET, "products-v2");
        String catalogUrl =
            TestDatabases.withFreshCatalog(base, "it.uids", "graph")
                .get(DocumentOptions.CATALOG_URL);
        config = base.with(DocumentOptions.CATALOG_URL, catalogUrl);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    return config;
  }

  private static List<String> recorded() throws IOException {
    try (InputStream in = OperatorUidsITCase.class.getResourceAsStream("/operator-uids.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .filter(l -> !l.isBlank() && !l.startsWith("#"))
          .toList();
    }
  }
}
