package dev.weir.backfill;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.schema.Json;
import dev.weir.search.ProductsIndex;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/** The index a backfill writes: prepared, compared with the copy, swapped behind the alias. */
final class TargetIndex {

  /** What the target holds of one document. */
  record Held(String contentHash, long version) {}

  private TargetIndex() {}

  /**
   * Creates {@code index} from the mapping in schemas/, or checks that an existing one has the same
   * field mappings.
   *
   * @throws BackfillException if the existing index's mapping differs
   */
  static void createOrCheck(ElasticsearchClient es, String index) throws IOException {
    if (!es.indices().exists(e -> e.index(index)).value()) {
      ProductsIndex.create(es, index);
      return;
    }
    JsonNode expected = Json.mapper().readTree(ProductsIndex.mapping()).path("mappings");
    JsonNode actual =
        get(ElasticsearchClients.rest(es), "/" + index + "/_mapping").path(index).path("mappings");
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
    if (!conflicts.isEmpty()) {
      throw new BackfillException(
          "target index "
              + index
              + " exists with a mapping that conflicts with schemas/elasticsearch/products.mapping.json: "
              + String.join("; ", conflicts)
              + ". Choose another --target, or delete the index.");
    }
  }

  /** Content hash and version of every document the index holds with {@code from <= id <= to}. */
  static Map<Long, Held> held(ElasticsearchClient es, String index, long from, long to)
      throws IOException {
    Map<Long, Held> held = new HashMap<>();
    List<FieldValue> after = null;
    while (true) {
      List<FieldValue> cursor = after;
      List<Hit<ObjectNode>> hits =
          es.search(
                  s -> {
                    s.index(index)
                        .size(1000)
                        .version(true)
                        .source(src -> src.filter(f -> f.includes("content_hash")))
                        // Exact longs: as doubles, ids above 2^53 would round.
                        .query(
                            q ->
                                q.range(
                                    r ->
                                        r.untyped(
                                            u ->
                                                u.field("product_id")
                                                    .gte(JsonData.of(from))
                                                    .lte(JsonData.of(to)))))
                        .sort(o -> o.field(f -> f.field("product_id").order(SortOrder.Asc)));
                    return cursor == null ? s : s.searchAfter(cursor);
                  },
                  ObjectNode.class)
              .hits()
              .hits();
      for (Hit<ObjectNode> hit : hits) {
        JsonNode hash = hit.source() == null ? null : hit.source().get("content_hash");
        held.put(
            Long.parseLong(hit.id()),
            new Held(hash == null || hash.isNull() ? null : hash.asText(), hit.version()));
      }
      if (hits.size() < 1000) {
        return held;
      }
      after = hits.get(hits.size() - 1).sort();
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
