package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.connector.elasticsearch.SearchException;
import dev.weir.schema.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.http.util.EntityUtils;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/**
 * What the tests read and write of an index directly, over the same REST client as the jobs (so on
 * any of the three engines): a document by id, every document, a write or delete with an external
 * version as another writer would make it.
 */
public final class SearchDocuments {

  /** The most hits {@link #hits} returns ({@code index.max_result_window}'s default). */
  private static final int MAX_HITS = 10_000;

  private SearchDocuments() {}

  /** The source of document {@code id}, or null when the index does not hold it. */
  public static ObjectNode source(SearchCluster es, String index, String id) throws IOException {
    return source(es, index, id, null);
  }

  /** The source of document {@code id} at {@code routing} (null: its id's), or null. */
  public static ObjectNode source(SearchCluster es, String index, String id, String routing)
      throws IOException {
    JsonNode doc = get(es, index, id, routing);
    return doc == null ? null : (ObjectNode) doc.get("_source");
  }

  /** The document {@code id} as GET answers it ({@code _version}, {@code _source}), or null. */
  public static JsonNode get(SearchCluster es, String index, String id, String routing)
      throws IOException {
    try {
      return es.get(
          "/"
              + index
              + "/_doc/"
              + SearchCluster.encode(id)
              + (routing == null ? "" : "?routing=" + SearchCluster.encode(routing)));
    } catch (SearchException e) {
      if (e.status() == 404) {
        return null;
      }
      throw e;
    }
  }

  public static boolean exists(SearchCluster es, String index, String id) throws IOException {
    return get(es, index, id, null) != null;
  }

  /**
   * Every document of a (small) index after a refresh, as hits: {@code _id}, {@code _version},
   * {@code _source}.
   */
  public static List<JsonNode> hits(SearchCluster es, String index) throws IOException {
    es.refresh(index);
    ObjectNode body = Json.mapper().createObjectNode().put("size", MAX_HITS).put("version", true);
    body.put("track_total_hits", true);
    JsonNode found = es.search(index, body).path("hits");
    assertThat(found.path("total").path("value").asLong())
        .as("documents in %s (more than one search returns)", index)
        .isLessThan(MAX_HITS);
    List<JsonNode> hits = new ArrayList<>();
    found.path("hits").forEach(hits::add);
    return hits;
  }

  /**
   * The hits of a query ({@code {"query": ...}} body, as JSON text) after a refresh, best first.
   */
  public static List<JsonNode> search(SearchCluster es, String index, String body)
      throws IOException {
    es.refresh(index);
    List<JsonNode> hits = new ArrayList<>();
    es.search(index, body).path("hits").path("hits").forEach(hits::add);
    return hits;
  }

  /** How many documents a query ({@code {"query": ...}} as JSON text) finds, after a refresh. */
  public static long count(SearchCluster es, String index, String query) throws IOException {
    es.refresh(index);
    return es.post("/" + index + "/_count", "{\"query\": " + query + "}").path("count").asLong();
  }

  /**
   * Writes a document with an external version, as another writer would. False when the index holds
   * a version at least as new (409): the write is not applied.
   */
  public static boolean index(
      SearchCluster es, String index, String id, long version, Object source) throws IOException {
    try {
      es.put(
          "/"
              + index
              + "/_doc/"
              + SearchCluster.encode(id)
              + "?version_type=external&version="
              + version,
          source);
      return true;
    } catch (SearchException e) {
      if (e.status() == 409) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Deletes a document with an external version. False when it is not there (404) or the index
   * holds a version at least as new (409).
   */
  public static boolean delete(SearchCluster es, String index, String id, long version)
      throws IOException {
    try {
      es.delete(
          "/"
              + index
              + "/_doc/"
              + SearchCluster.encode(id)
              + "?version_type=external&version="
              + version);
      return true;
    } catch (SearchException e) {
      if (e.status() == 409 || e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The document's {@code _source} exactly as the engine stored it (bytes, not a re-read tree), or
   * null.
   */
  public static String rawSource(SearchCluster es, String index, String id) throws IOException {
    try (RestClient rest = ElasticsearchClients.rest(es.settings())) {
      Response got =
          rest.performRequest(
              new Request("GET", "/" + index + "/_source/" + SearchCluster.encode(id)));
      return EntityUtils.toString(got.getEntity(), StandardCharsets.UTF_8);
    } catch (ResponseException e) {
      if (e.getResponse().getStatusLine().getStatusCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  /** Blocks (or unblocks) writes to an index: {@code index.blocks.write}. */
  public static void blockWrites(SearchCluster es, String index, boolean blocked)
      throws IOException {
    es.put("/" + index + "/_settings", "{\"index.blocks.write\": " + blocked + "}");
  }
}
