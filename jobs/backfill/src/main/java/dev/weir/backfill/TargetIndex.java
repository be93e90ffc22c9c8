package dev.weir.backfill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.schema.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The index a backfill writes: prepared from the copy's mapping, compared with the copy (by id, ids
 * as strings), scanned for what the copy no longer has, swapped behind the alias.
 */
final class TargetIndex {

  /** What the target holds of one document, and at which routing (null: its id's). */
  record Held(String contentHash, long version, String routing) {}

  private TargetIndex() {}

  /**
   * Creates {@code index} from the copy's mapping, or checks that an existing one has the same
   * field mappings.
   *
   * @throws BackfillException if the existing index's mapping differs
   */
  static void createOrCheck(SearchCluster cluster, String index, CopySource copy)
      throws IOException {
    JsonNode body = Json.mapper().readTree(copy.mapping());
    if (!cluster.indexExists(index)) {
      cluster.createIndex(index, body);
      return;
    }
    JsonNode expected = cluster.engine().indexBody(body).path("mappings");
    JsonNode actual = cluster.mappings(index);
    List<String> conflicts = conflicts(expected, actual);
    if (!conflicts.isEmpty()) {
      throw new BackfillException(
          "target index "
              + index
              + " exists with a mapping that conflicts with "
              + copy.mappingOrigin()
              + ": "
              + String.join("; ", conflicts)
              + ". Choose another --target, or delete the index.");
    }
  }

  /** The fields whose mapping differs from the expected one. */
  static List<String> conflicts(JsonNode expected, JsonNode actual) {
    List<String> conflicts = new ArrayList<>();
    expected
        .path("properties")
        .fields()
        .forEachRemaining(
            f -> {
              JsonNode other = actual.path("properties").path(f.getKey());
              if (!f.getValue().equals(other)) {
                conflicts.add(
                    f.getKey()
                        + " is "
                        + (other.isMissingNode() ? "missing" : other.toString())
                        + ", expected "
                        + f.getValue());
              }
            });
    return conflicts;
  }

  /**
   * Content hash, version and routing of the documents with these ids that the index holds. Routed
   * by their id ({@code routed} false): one multi-get, which reads what was written even before a
   * refresh makes it searchable. Routed by a field: a search by ids, which finds a document on
   * whichever shard it is (a multi-get looks only where the id routes).
   */
  static Map<String, Held> held(
      SearchCluster cluster, String index, Collection<String> ids, boolean routed)
      throws IOException {
    Map<String, Held> held = new HashMap<>();
    if (ids.isEmpty()) {
      return held;
    }
    ObjectNode body = Json.mapper().createObjectNode();
    ArrayNode list = Json.mapper().createArrayNode();
    ids.forEach(list::add);
    if (routed) {
      body.put("size", ids.size()).put("version", true);
      body.putArray("_source").add(DocumentPlan.CONTENT_HASH);
      body.putObject("query").putObject("ids").set("values", list);
      for (JsonNode hit : cluster.search(index, body).path("hits").path("hits")) {
        put(held, hit, hit.path("_version").asLong(0));
      }
      return held;
    }
    body.set("ids", list);
    JsonNode docs =
        cluster
            .post("/" + index + "/_mget?_source_includes=" + DocumentPlan.CONTENT_HASH, body)
            .path("docs");
    for (JsonNode doc : docs) {
      if (doc.has("error")) {
        throw new IOException(
            "cannot read document "
                + doc.path("_id").asText()
                + " of "
                + index
                + ": "
                + doc.path("error").path("reason").asText(doc.path("error").toString()));
      }
      if (doc.path("found").asBoolean()) {
        put(held, doc, doc.path("_version").asLong(0));
      }
    }
    return held;
  }

  private static void put(Map<String, Held> held, JsonNode doc, long version) {
    JsonNode hash = doc.path("_source").get(DocumentPlan.CONTENT_HASH);
    held.put(
        doc.path("_id").asText(),
        new Held(
            hash == null || hash.isNull() ? null : hash.asText(),
            version,
            doc.path("_routing").asText(null)));
  }

  /** The most documents one search returns ({@code index.max_result_window}'s default). */
  static final int MAX_PAGE = 10_000;

  /**
   * Points {@code alias} at {@code target} only, in one alias update: searches see the old index or
   * the new one, never neither. Every other alias of the index it replaces moves with it: behind a
   * generation's write alias ({@code weir documents apply}) the alias searches read is on the same
   * index, and must not stay behind on the old one.
   */
  static void swap(SearchCluster cluster, String alias, String target) throws IOException {
    ArrayNode actions = Json.mapper().createArrayNode();
    Set<String> moved = new LinkedHashSet<>(List.of(alias));
    for (String index : cluster.indicesBehind(alias)) {
      if (!index.equals(target)) {
        for (String a : cluster.aliasesOf(index)) {
          actions.add(SearchCluster.aliasAction("remove", index, a));
          moved.add(a);
        }
      }
    }
    for (String a : moved) {
      actions.add(SearchCluster.aliasAction("add", target, a));
    }
    cluster.updateAliases(actions);
  }
}
