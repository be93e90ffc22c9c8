package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.search.SearchIndexJob;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The index behind the search alias deleted while search-index runs (an operator's mistake, a
 * cleanup script): the next write must not make Elasticsearch create an index with a guessed
 * mapping under the alias's name, which would keep the job from ever starting again. The job fails
 * saying what happened and how to recover, and the recovery works: start the job again (its prepare
 * step recreates the alias's index from the mapping), then refill it with the backfill.
 */
@ExtendWith(LocalStackExtension.class)
class IndexDeletedITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(4).build());

  private static final Duration WAIT = Duration.ofSeconds(90);

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private WeirConfig config;
  private JobClient capture;
  private JobClient indexer;

  @AfterEach
  void stop() throws Exception {
    for (JobClient job : new JobClient[] {capture, indexer}) {
      if (job != null && !job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get();
      }
    }
    if (config != null) {
      CatalogCaptureJob.dropSlot(config);
    }
  }

  @Test
  void aWriteAfterTheIndexIsDeletedFailsClearlyCreatesNothingAndTheDocumentedRecoveryWorks(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    config =
        TestDatabases.withFreshCatalog(
            TestDatabases.fresh(LocalStackExtension.config(), "it_deleted"), "it.deleted", run);
    String alias = config.get(DocumentOptions.ALIAS);
    String index = alias + "-v1"; // the index the job creates behind a new alias
    SearchCluster es = ElasticsearchConnection.cluster(config);
    catalog(
        "INSERT INTO brand VALUES (1, 'Acme')",
        "INSERT INTO category VALUES (1, 'Outdoor', NULL)",
        product(1, "Trail Backpack 30L"),
        product(2, "Summit Tent"));
    capture = JobRunner.start(new CatalogCaptureJob(), env(new Configuration()), config);
    indexer = JobRunner.start(new SearchIndexJob(), env(retained()), config);
    awaitName(es, alias, 1, "Trail Backpack 30L");
    awaitName(es, alias, 2, "Summit Tent");
    // A checkpoint that holds both documents as written, to start again from.
    Await.until(WAIT, () -> FlinkRest.latestCheckpoint(flink, indexer.getJobID()), p -> p != null);
    Thread.sleep(2_500);

    // 1. The index goes (and the alias with it); a change follows.
    es.deleteIndex(index);
    catalog("UPDATE product SET name = 'Trail Backpack 32L', updated_at = now() WHERE id = 1");

    // 2. The job fails and says why and what to do; nothing was created in the index's place.
    String failures =
        Await.until(
            WAIT,
            () -> FlinkRest.exceptions(flink, indexer.getJobID()),
            f -> f.contains("has no index behind it"));
    assertThat(failures)
        .contains("alias " + alias + " has no index behind it")
        .contains("weir backfill");
    Thread.sleep(3_000); // the job's next attempts, restarting, write the same change again
    assertThat(es.indexExists(alias)).as("an index (or alias) named %s", alias).isFalse();
    assertThat(es.indices(alias + "*")).as("indices named like the alias").isEmpty();

    // 3. Start the job again from its last checkpoint: prepare recreates the alias's index from
    //    the mapping, and the change is written to it. The other document was written before the
    //    checkpoint: the new index does not have it.
    String checkpoint = FlinkRest.latestCheckpoint(flink, indexer.getJobID());
    indexer.cancel().get();
    Configuration restore = retained();
    restore.set(SavepointConfigOptions.SAVEPOINT_PATH, checkpoint);
    indexer = JobRunner.start(new SearchIndexJob(), env(restore), config);
    assertThat(es.indicesBehind(alias)).containsExactly(index);
    try {
      awaitName(es, alias, 1, "Trail Backpack 32L");
    } catch (AssertionError e) {
      // What the started job met says where the change stopped.
      throw new AssertionError(
          e.getMessage()
              + "\njob started from "
              + checkpoint
              + ", its failures: "
              + FlinkRest.exceptions(flink, indexer.getJobID()),
          e);
    }
    assertThat(name(es, alias, 2)).as("document 2 before the backfill").isNull();

    // 4. The backfill refills the index from the copy.
    Backfill.Summary refill =
        Backfill.run(
            config.with(BackfillOptions.TARGET, index),
            false,
            StreamExecutionEnvironment::getExecutionEnvironment,
            (pass, done, total, rate) -> {});
    System.out.println("refill: " + refill);
    assertThat(name(es, alias, 2)).isEqualTo("Summit Tent");
    assertThat(name(es, alias, 1)).isEqualTo("Trail Backpack 32L");
    assertThat(SearchDocuments.search(es, alias, "{\"query\": {\"match\": {\"name\": \"tent\"}}}"))
        .as("document 2 found by a search")
        .hasSize(1);
  }

  /** Keeps the job's checkpoints when it is cancelled, to start it again from the last one. */
  private static Configuration retained() {
    Configuration conf = new Configuration();
    conf.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    return conf;
  }

  private static StreamExecutionEnvironment env(Configuration conf) {
    return StreamExecutionEnvironment.getExecutionEnvironment(conf);
  }

  private static String product(long id, String name) {
    return String.format(
        "INSERT INTO product (id, sku, name, description, attributes, brand_id, category_id)"
            + " VALUES (%d, 'SKU-%d', '%s', 'A %s', '{}', 1, 1)",
        id, id, name, name);
  }

  private void catalog(String... statements) throws Exception {
    try (Connection c =
        PostgresConnectionProvider.open(config, config.get(DocumentOptions.CATALOG_URL))) {
      for (String sql : statements) {
        c.createStatement().execute(sql);
      }
    }
  }

  private static String name(SearchCluster es, String alias, long id) throws Exception {
    var source = SearchDocuments.source(es, alias, Long.toString(id));
    return source == null ? null : source.path("name").asText(null);
  }

  private static void awaitName(SearchCluster es, String alias, long id, String expected)
      throws Exception {
    assertThat(
            Await.until(
                WAIT,
                () -> {
                  try {
                    return name(es, alias, id);
                  } catch (Exception e) {
                    return null; // the alias is being recreated
                  }
                },
                expected::equals))
        .as("document %d", id)
        .isEqualTo(expected);
  }
}
