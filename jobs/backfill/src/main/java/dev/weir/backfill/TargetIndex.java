package dev.weir.backfill;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/**
 * The index a backfill writes: prepared from the copy's mapping, compared with the copy (by id, ids
 * as strings), scanned for what the copy no longer has, swapped behind the alias.
 */
final class TargetIndex {

  /** What the target holds of one document. */
  record Held(String contentHash, long version) {}

  /** How long a scan's point in time is kept between two pages. */
  private static final String KEEP_ALIVE = "5m";

  private TargetIndex() {}

  /**
   * Creates {@code index} from the copy's mapping, or checks that an existing one has the same
   * field mappings.
   *
   * @throws BackfillException if the existing index's mapping differs
   */
  static void createOrCheck(ElasticsearchClient es, String index, CopySource copy)
      throws IOException {
    if (!es.indices().exists(e -> e.index(index)).value()) {
      DocumentIndex.create(es, index, copy.mapping());
      return;
    }
    JsonNode expected = Json.mapper().readTree(copy.mapping()).path("mappings");
    JsonNode actual =
        get(ElasticsearchClients.rest(es), "/" + index + "/_mapping").path(index).path("mappings");
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
   * Content hash and version of the documents with these ids that the index holds: one multi-get,
   * which reads what was written even before a refresh makes it searchable.
   */
  static Map<String, Held> held(ElasticsearchClient es, String index, Collection<String> ids)
      throws IOException {
    Map<String, Held> held = new HashMap<>();
    if (ids.isEmpty()) {
      return held;
    }
    List<String> list = List.copyOf(ids);
    var docs =
        es.mget(
                m -> m.index(index).ids(list).sourceIncludes(DocumentPlan.CONTENT_HASH),
                ObjectNode.class)
            .docs();
    for (var item : docs) {
      if (item.isFailure()) {
        throw new IOException(
            "cannot read document "
                + item.failure().id()
                + " of "
                + index
                + ": "
                + item.failure().error().reason());
      }
      var doc = item.result();
      if (!doc.found()) {
        continue;
      }
      JsonNode hash = doc.source() == null ? null : doc.source().get(DocumentPlan.CONTENT_HASH);
      held.put(
          doc.id(),
          new Held(
              hash == null || hash.isNull() ? null : hash.asText(),
              doc.version() == null ? 0 : doc.version()));
    }
    return held;
  }

  /** The most documents one search returns ({@code index.max_result_window}'s default). */
  static final int MAX_PAGE = 10_000;

  /** One page of a scan: id → version of each document. */
  interface Page {
    void accept(Map<String, Long> versions) throws Exception;
  }

  /**
   * Every document of the index, in pages of {@code size}, as a point in time held it when the scan
   * began (search_after on {@code _shard_doc}: no limit of 10,000, any id).
   */
  static void scan(ElasticsearchClient es, String index, int size, Page page) throws Exception {
    String[] pit = {
      es.openPointInTime(o -> o.index(index).keepAlive(k -> k.time(KEEP_ALIVE))).id()
    };
    try {
      List<FieldValue> after = null;
      while (true) {
        List<FieldValue> cursor = after;
        var found =
            es.search(
                s -> {
                  s.pit(p -> p.id(pit[0]).keepAlive(k -> k.time(KEEP_ALIVE)))
                      .size(size)
                      .version(true)
                      .source(src -> src.fetch(false))
                      .trackTotalHits(t -> t.enabled(false))
                      .sort(o -> o.field(f -> f.field("_shard_doc").order(SortOrder.Asc)));
                  return cursor == null ? s : s.searchAfter(cursor);
                },
                ObjectNode.class);
        if (found.pitId() != null) {
          pit[0] = found.pitId();
        }
        List<Hit<ObjectNode>> hits = found.hits().hits();
        Map<String, Long> versions = new LinkedHashMap<>();
        for (Hit<ObjectNode> hit : hits) {
          versions.put(hit.id(), hit.version() == null ? 0 : hit.version());
        }
        if (!versions.isEmpty()) {
          page.accept(versions);
        }
        if (hits.size() < size) {
          return;
        }
        after = hits.get(hits.size() - 1).sort();
      }
    } finally {
      es.closePointInTime(c -> c.id(pit[0]));
    }
  }

  /** The indices behind {@code alias} (none if it does not exist). */
  static Set<String> behind(ElasticsearchClient es, String alias) throws IOException {
    if (!es.indices().existsAlias(a -> a.name(alias)).value()) {
      return Set.of();
    }
    return es.indices().getAlias(a -> a.name(alias)).result().keySet();
  }

  /**
   * Points {@code alias} at {@code target} only, in one alias update: searches see the old index or
   * the new one, never neither.
   */
  static void swap(ElasticsearchClient es, String alias, String target) throws IOException {
    Set<String> old = behind(es, alias);
    es.indices()
        .updateAliases(
            u -> {
              for (String index : old) {
                if (!index.equals(target)) {
                  u.actions(a -> a.remove(r -> r.index(index).alias(alias)));
                }
              }
              return u.actions(a -> a.add(add -> add.index(target).alias(alias)));
            });
  }

  static long count(ElasticsearchClient es, String index) throws IOException {
    return es.count(c -> c.index(index)).count();
  }

  private static JsonNode get(RestClient rest, String path) throws IOException {
    try {
      Response response = rest.performRequest(new Request("GET", path));
      try (InputStream in = response.getEntity().getContent()) {
        return Json.mapper().readTree(in);
      }
    } catch (ResponseException e) {
      throw new IOException(path + ": " + e.getMessage(), e);
    }
  }
}
