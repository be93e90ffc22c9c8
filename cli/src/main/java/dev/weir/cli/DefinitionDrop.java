package dev.weir.cli;

import dev.weir.capture.CaptureOptions;
import dev.weir.capture.ReplicationSlots;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.ChangeTopicNames;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.documents.index.ElasticsearchConnection;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Removes what a definition file's deployment made: for each database it names, the capture's
 * replication slot (which else keeps the server's WAL) and publication; for each document, its copy
 * table and the index behind its alias; on request, its tables' change topics. Refuses, dropping
 * nothing, while a capture still holds a slot. The jobs' state goes with their checkpoints.
 */
final class DefinitionDrop {

  private final WeirConfig config;
  private final PrintWriter out;

  DefinitionDrop(WeirConfig config, PrintWriter out) {
    this.config = config;
    this.out = out;
  }

  /**
   * Drops everything {@code documents} made.
   *
   * @throws IllegalStateException when a capture still uses a slot (nothing dropped then)
   */
  void drop(List<DocumentSpec> documents, boolean topics) throws Exception {
    Set<String> databases = new LinkedHashSet<>();
    documents.forEach(d -> databases.add(d.database()));
    boolean several = databases.size() > 1;
    String server = config.get(DocumentOptions.CATALOG_URL);
    try (Connection c = PostgresConnectionProvider.open(config, server)) {
      for (String database : databases) {
        Optional<ReplicationSlots.Slot> slot =
            ReplicationSlots.named(c, CaptureOptions.slot(config, database, several));
        if (slot.isPresent() && slot.get().active()) {
          throw new IllegalStateException(
              "the replication slot "
                  + slot.get().name()
                  + " is in use by a running capture: cancel cdc-catalog first (nothing dropped)");
        }
      }
      for (String database : databases) {
        dropSlot(c, CaptureOptions.slot(config, database, several));
      }
    }
    for (String database : databases) {
      dropPublication(database, CaptureOptions.publication(config, database, several));
    }
    try (Connection copy = PostgresConnectionProvider.open(config);
        SearchCluster cluster = ElasticsearchConnection.cluster(config)) {
      for (DocumentSpec document : documents) {
        copy.createStatement()
            .execute("DROP TABLE IF EXISTS \"" + document.copyTable().replace("\"", "\"\"") + "\"");
        out.println("copy table " + document.copyTable() + ": dropped");
        Set<String> indices =
            cluster.aliasExists(document.index())
                ? cluster.indicesBehind(document.index())
                : Set.of();
        for (String index : indices) {
          cluster.deleteIndex(index);
        }
        out.println(
            "index "
                + document.index()
                + ": "
                + (indices.isEmpty() ? "no index behind the alias" : "deleted " + indices));
      }
    }
    if (topics) {
      List<String> names = changeTopics(documents);
      KafkaTopics.deleteTopics(config, names);
      out.println("change topics: deleted " + names);
    }
    out.flush();
  }

  /** The change topics of every table the documents read (not the topics other services feed). */
  List<String> changeTopics(List<DocumentSpec> documents) {
    ChangeTopicNames names = ChangeTopicNames.of(config);
    return TableResnapshot.captured(documents).stream()
        .map(t -> names.topic(t.database(), t.schema(), t.table()))
        .distinct()
        .toList();
  }

  private void dropSlot(Connection c, String slot) throws SQLException {
    boolean dropped = ReplicationSlots.drop(c, slot);
    out.println("replication slot " + slot + ": " + (dropped ? "dropped" : "none"));
  }

  private void dropPublication(String database, String publication) throws SQLException {
    try (Connection c =
        PostgresConnectionProvider.open(config, Definitions.databaseUrl(config, database))) {
      c.createStatement()
          .execute("DROP PUBLICATION IF EXISTS \"" + publication.replace("\"", "\"\"") + "\"");
      out.println("publication " + publication + " in " + database + ": dropped");
    }
  }
}
