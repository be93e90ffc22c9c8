package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.capture.ReplicationSlots;
import dev.weir.cli.WeirCli;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.it.TestDatabases.Source;
import dev.weir.search.SearchIndexJob;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code weir documents drop FILE --topics} after a deployment ran: the slot, the publication, the
 * copy table, the index and the change topics are gone; while the capture runs it refuses and drops
 * nothing.
 */
@ExtendWith(LocalStackExtension.class)
class DocumentsDropITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(8).build());

  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void dropRemovesTheSlotPublicationCopyIndexAndTopicsAndRefusesWhileTheCaptureRuns()
      throws Exception {
    String alias = "it-drop-" + run;
    String database = "it_drop_" + run;
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_drop");
    Source source =
        TestDatabases.freshSource(
            base,
            database,
            "CREATE TABLE item (id bigint PRIMARY KEY, name text)",
            "INSERT INTO item VALUES (1, 'lamp')");
    String catalogUrl = source.url();
    Path file = dir.resolve("drop.json");
    Files.writeString(
        file,
        """
        [{"database": "%s", "index": "%s", "nodes": {"table": "item", "columns": ["id", "name"]}}]
        """
            .formatted(database, alias));
    WeirConfig config = TestDatabases.declaring(base, source, file, "it.drop", run);
    String slot = config.get(CaptureOptions.CATALOG_SLOT);
    List<String> topics = Definitions.topics(config, Definitions.plans(config));
    String copyTable = Definitions.plans(config).get(0).copyTable();

    JobClient capture = JobRunner.start(new CatalogCaptureJob(), env(), config);
    JobClient indexer = JobRunner.start(new SearchIndexJob(), env(), config);
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      Await.until(WAIT, () -> SearchDocuments.source(es, alias, "1"), d -> d != null);

      List<String> args =
          new ArrayList<>(List.of("documents", "drop", file.toString(), "--topics"));
      args.addAll(
          DocumentSides.cliOptions(
              config,
              DocumentOptions.CATALOG_URL,
              CaptureOptions.CATALOG_SLOT,
              CaptureOptions.CATALOG_PUBLICATION,
              DocumentOptions.CDC_TOPIC_PREFIX,
              WeirOptions.POSTGRES_URL,
              WeirOptions.ELASTICSEARCH_URL,
              WeirOptions.KAFKA_BOOTSTRAP_SERVERS));
      StringWriter err = new StringWriter();
      assertThat(cli(args, new StringWriter(), err))
          .as("refused while the capture runs")
          .isEqualTo(1);
      assertThat(err.toString()).contains("replication slot " + slot + " is in use");
      assertThat(slotExists(config, slot)).isTrue();
      assertThat(es.aliasExists(alias)).isTrue();

      indexer.cancel().get();
      capture.cancel().get();
      Await.until(WAIT, () -> !slotActive(config, slot), active -> active);
      StringWriter out = new StringWriter();
      assertThat(cli(args, out, err)).as(err.toString()).isZero();
      assertThat(out.toString())
          .contains("replication slot " + slot + ": dropped")
          .contains("copy table " + copyTable + ": dropped");
      assertThat(slotExists(config, slot)).isFalse();
      assertThat(publications(config, catalogUrl)).doesNotContain(slot);
      assertThat(tableExists(config, copyTable)).isFalse();
      assertThat(es.aliasExists(alias)).isFalse();
      assertThat(es.indices(alias + "*")).isEmpty();
      try (Admin admin = Kafka.admin()) {
        Set<String> left = admin.listTopics().names().get();
        assertThat(left).doesNotContainAnyElementsOf(topics);
      }
    }
  }

  private static int cli(List<String> args, StringWriter out, StringWriter err) {
    CommandLine cli = WeirCli.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args.toArray(String[]::new));
  }

  private static boolean slotExists(WeirConfig config, String slot) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return ReplicationSlots.named(c, slot).isPresent();
    }
  }

  private static boolean slotActive(WeirConfig config, String slot) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return ReplicationSlots.named(c, slot).map(ReplicationSlots.Slot::active).orElse(false);
    }
  }

  private static List<String> publications(WeirConfig config, String url) throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection c = PostgresConnectionProvider.open(config, url);
        ResultSet rs = c.createStatement().executeQuery("SELECT pubname FROM pg_publication")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  private static boolean tableExists(WeirConfig config, String table) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT to_regclass('\"" + table + "\"') IS NOT NULL")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
