package dev.weir.it;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.ElasticsearchConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;

/**
 * What earlier test runs left on a stack that outlives them (a developer's {@code .weir}; CI starts
 * a fresh one): databases, their replication slots, indices and topics. A few MB each, and a slot
 * that a crashed test did not drop keeps WAL forever. Removed when a run starts, not when it ends,
 * so that a failed run's data is there to look at until the next run. Everything the tests create
 * is named {@code it_*}, {@code it-*} or {@code it.*}.
 */
final class EarlierTestRuns {

  private static final String DATABASES = "it\\_%";
  private static final String INDICES = "it-*";
  private static final String TOPICS = "it.";

  private EarlierTestRuns() {}

  /** Removes them and says how many there were. */
  static String removeLeftovers(WeirConfig config, String maintenanceDatabaseUrl) throws Exception {
    int databases = dropDatabases(config, maintenanceDatabaseUrl);
    int indices = deleteIndices(config);
    int topics = deleteTopics(config);
    return String.format(
        "removed what earlier test runs left (databases: %d, indices: %d, topics: %d)",
        databases, indices, topics);
  }

  private static int dropDatabases(WeirConfig config, String url) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      // A database with a logical replication slot cannot be dropped.
      try (PreparedStatement slots =
          c.prepareStatement(
              "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                  + " WHERE database LIKE ? AND NOT active")) {
        slots.setString(1, DATABASES);
        slots.execute();
      }
      List<String> names =
          TestDatabases.strings(
              config,
              url,
              "SELECT datname FROM pg_database WHERE datname LIKE '" + DATABASES + "'");
      for (String name : names) {
        c.createStatement().execute("DROP DATABASE \"" + name + "\" WITH (FORCE)");
      }
      return names.size();
    }
  }

  private static int deleteIndices(WeirConfig config) throws Exception {
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      List<String> names = es.indices(INDICES);
      if (!names.isEmpty()) {
        es.deleteIndex(String.join(",", names));
      }
      return names.size();
    }
  }

  private static int deleteTopics(WeirConfig config) throws Exception {
    try (Admin admin = KafkaClients.admin(config)) {
      List<String> names =
          admin.listTopics().names().get().stream().filter(t -> t.startsWith(TOPICS)).toList();
      if (!names.isEmpty()) {
        admin.deleteTopics(names).all().get();
      }
      return names.size();
    }
  }
}
