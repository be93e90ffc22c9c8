package dev.weir.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexOptions;
import dev.weir.search.join.Stamps;
import java.io.PrintWriter;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The documents of a root table read again whose root row the read did not return: gone from the
 * source while nothing told the join (a capture started again from scratch, the job without its
 * state). They are deleted from the copy and the index at the version of the read's position, so
 * that a document written after it (its root inserted again) is never touched, and the join's own
 * deletion of the same document, where it knew the row, is a no-op.
 */
final class RootSweep {

  private static final int BATCH = 500;

  private final WeirConfig config;
  private final DocumentPlan plan;
  private final Map<String, String> types;
  private final Set<String> read = new HashSet<>();

  /**
   * @param types the root table's column types
   */
  RootSweep(WeirConfig config, DocumentPlan plan, Map<String, String> types) {
    this.config = config;
    this.plan = plan;
    this.types = types;
  }

  /** A row of the root table as read, in to_jsonb's form: its document stays. */
  void read(ObjectNode row) {
    List<JsonNode> key = new ArrayList<>();
    for (String column : plan.root().keyColumns()) {
      Object raw = Json.mapper().convertValue(row.get(column), Object.class);
      key.add(Values.normalize(column, raw, types.get(column)));
    }
    read.add(Values.key(key));
  }

  /**
   * Deletes the documents below the version of WAL position {@code position} whose root was not
   * read; returns how many.
   */
  long sweep(long position, PrintWriter out) throws Exception {
    long version =
        Stamps.of(config.get(SearchIndexOptions.SOURCE_EPOCH), position - 1)
            << DocumentChange.RAISE_BITS;
    List<String> gone = new ArrayList<>();
    String copy = "\"" + plan.copyTable().replace("\"", "\"\"") + "\"";
    try (Connection c = PostgresConnectionProvider.open(config)) {
      try (PreparedStatement s =
          c.prepareStatement("SELECT doc_id FROM " + copy + " WHERE doc_version < ?")) {
        s.setLong(1, version);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            if (!read.contains(r.getString(1))) {
              gone.add(r.getString(1));
            }
          }
        }
      }
      try (SearchCluster cluster = ElasticsearchConnection.cluster(config);
          PreparedStatement delete =
              c.prepareStatement(
                  "DELETE FROM " + copy + " WHERE doc_id = ANY(?) AND doc_version < ?")) {
        for (int i = 0; i < gone.size(); i += BATCH) {
          List<String> batch = gone.subList(i, Math.min(gone.size(), i + BATCH));
          // The index first: a sweep stopped between the two finds the copy's rows again.
          deleteFromIndex(cluster, batch, version);
          Array ids = c.createArrayOf("text", batch.toArray());
          delete.setArray(1, ids);
          delete.setLong(2, version);
          delete.executeUpdate();
        }
      }
    }
    out.printf(
        "%s: %,d documents whose root row is gone deleted from %s and the index%n",
        plan.index(), gone.size(), plan.copyTable());
    out.flush();
    return gone.size();
  }

  private void deleteFromIndex(SearchCluster cluster, List<String> ids, long version)
      throws Exception {
    ObjectNode query =
        Json.mapper().createObjectNode().put("size", ids.size()).put("version", true);
    query.put("_source", false);
    var values = query.putObject("query").putObject("ids").putArray("values");
    ids.forEach(values::add);
    for (JsonNode hit : cluster.search(plan.index(), query).path("hits").path("hits")) {
      if (hit.path("_version").asLong() >= version) {
        continue;
      }
      // False where the job wrote or deleted it meanwhile, at a later version: nothing to sweep.
      cluster.deleteBelow(
          hit.path("_index").asText(),
          hit.path("_id").asText(),
          hit.path("_routing").asText(null),
          version);
    }
  }
}
