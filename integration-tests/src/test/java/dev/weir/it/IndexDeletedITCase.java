package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.search.SearchIndexJob;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
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
    ElasticsearchClient es =
        ElasticsearchClients.blocking(ElasticsearchConnection.settings(config));
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
    es.indices().delete(d -> d.index(index));
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
    assertThat(es.indices().exists(e -> e.index(alias)).value())
        .as("an index (or alias) named %s", alias)
        .isFalse();
    assertThat(es.indices().get(g -> g.index(alias + "*")).result().keySet())
        .as("indices named like the alias")
        .isEmpty();

    // 3. Start the job again from its last checkpoint: prepare recreates the alias's index from
    //    the mapping, and the change is written to it. The other document was written before the
    //    checkpoint: the new index does not have it.
    String checkpoint = FlinkRest.latestCheckpoint(flink, indexer.getJobID());
    indexer.cancel().get();
    Configuration restore = retained();
    restore.set(SavepointConfigOptions.SAVEPOINT_PATH, checkpoint);
    indexer = JobRunner.start(new SearchIndexJob(), env(restore), config);
    assertThat(TargetAliases.behind(es, alias)).containsExactly(index);
    awaitName(es, alias, 1, "Trail Backpack 32L");
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
    es.indices().refresh(r -> r.index(alias));
    assertThat(
            es.search(
                    s -> s.index(alias).query(q -> q.match(m -> m.field("name").query("tent"))),
                    Map.class)
                .hits()
                .hits())
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

  private static String name(ElasticsearchClient es, String alias, long id) throws Exception {
    var got = es.get(g -> g.index(alias).id(Long.toString(id)), Map.class);
    return got.found() ? (String) got.source().get("name") : null;
  }

  private static void awaitName(ElasticsearchClient es, String alias, long id, String expected)
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

  /** The indices behind an alias. */
  private static final class TargetAliases {
    static Set<String> behind(ElasticsearchClient es, String alias) throws Exception {
      return es.indices().getAlias(a -> a.name(alias)).result().keySet();
    }
  }
}
