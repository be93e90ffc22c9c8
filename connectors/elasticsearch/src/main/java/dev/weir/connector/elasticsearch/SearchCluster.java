package dev.weir.connector.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.schema.Json;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.http.HttpEntity;
import org.apache.http.entity.ContentType;
import org.apache.http.nio.entity.NByteArrayEntity;
import org.apache.http.util.EntityUtils;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/**
 * A search cluster (Elasticsearch 8 or 9, OpenSearch 2) over plain REST: requests with JSON bodies
 * built by weir's Jackson mapper, answers read as JSON trees, an error answer thrown as a {@link
 * SearchException} with the engine's type and reason. The engine is asked once, when first needed
 * ({@link #engine}); the few calls that differ between engines ask it.
 */
public final class SearchCluster implements Closeable {

  private static final String PRODUCT_HEADER = "X-elastic-product";

  private final ElasticsearchSettings settings;
  private final RestClient rest;
  private Engine engine;

  private SearchCluster(ElasticsearchSettings settings, RestClient rest) {
    this.settings = settings;
    this.rest = rest;
  }

  /** A client of the cluster {@code settings} names; nothing is sent yet. */
  public static SearchCluster connect(ElasticsearchSettings settings) {
    return new SearchCluster(settings, ElasticsearchClients.rest(settings));
  }

  public ElasticsearchSettings settings() {
    return settings;
  }

  /** The REST client, for requests sent as they are (the sink's bulk). */
  RestClient rest() {
    return rest;
  }

  /**
   * The engine: the one {@code elasticsearch.engine} names, else the cluster's own answer. Every
   * Elasticsearch answer carries the {@value #PRODUCT_HEADER} header (OpenSearch's none), and
   * {@code _nodes/_local} gives the version; where a managed service does not serve it, {@code GET
   * /} does (the integ-test distributions answer that one 405).
   */
  public synchronized Engine engine() throws IOException {
    if (engine == null) {
      engine = settings.engine() != null ? Engine.named(settings.engine()) : detect();
    }
    return engine;
  }

  private Engine detect() throws IOException {
    Response answer;
    String version;
    try {
      answer =
          rest.performRequest(new Request("GET", "/_nodes/_local?filter_path=nodes.*.version"));
      Iterator<JsonNode> nodes = json(answer).path("nodes").elements();
      version = nodes.hasNext() ? nodes.next().path("version").asText(null) : null;
    } catch (ResponseException e) {
      if (e.getResponse().getStatusLine().getStatusCode() == 401) {
        throw error("GET /_nodes/_local", e);
      }
      try {
        answer = rest.performRequest(new Request("GET", "/"));
      } catch (ResponseException again) {
        throw notDetected(error("GET /", again).getMessage());
      }
      version = json(answer).path("version").path("number").asText(null);
    }
    if (version == null) {
      throw notDetected("it did not say its version");
    }
    Engine.Distribution distribution =
        answer.getHeader(PRODUCT_HEADER) != null
            ? Engine.Distribution.ELASTICSEARCH
            : Engine.Distribution.OPENSEARCH;
    try {
      return new Engine(distribution, version).supported();
    } catch (IllegalStateException | NumberFormatException e) {
      throw new IOException("the search cluster at " + settings.url() + ": " + e.getMessage(), e);
    }
  }

  private IOException notDetected(String why) {
    return new IOException(
        "cannot tell which engine runs at "
            + settings.url()
            + " ("
            + why
            + "): name it with elasticsearch.engine ("
            + Engine.NAMES
            + ")");
  }

  // --- requests

  public JsonNode get(String endpoint) throws IOException {
    return send("GET", endpoint, null);
  }

  public JsonNode post(String endpoint, Object body) throws IOException {
    return send("POST", endpoint, body);
  }

  public JsonNode put(String endpoint, Object body) throws IOException {
    return send("PUT", endpoint, body);
  }

  public JsonNode delete(String endpoint) throws IOException {
    return send("DELETE", endpoint, null);
  }

  /**
   * Sends a request; {@code body} is a JSON tree, JSON text or bytes (null: none). The answer as a
   * JSON tree (empty when it had no body).
   *
   * @throws SearchException when the cluster answers with an error
   */
  public JsonNode send(String method, String endpoint, Object body) throws IOException {
    Request request = new Request(method, endpoint);
    if (body != null) {
      request.setEntity(entity(body, ContentType.APPLICATION_JSON));
    }
    try {
      return json(rest.performRequest(request));
    } catch (ResponseException e) {
      throw error(method + " " + endpoint, e);
    }
  }

  /** Whether a HEAD request finds what it names (200; 404: no). */
  public boolean exists(String endpoint) throws IOException {
    try {
      int status =
          rest.performRequest(new Request("HEAD", endpoint)).getStatusLine().getStatusCode();
      return status == 200;
    } catch (ResponseException e) {
      if (e.getResponse().getStatusLine().getStatusCode() == 404) {
        return false;
      }
      throw error("HEAD " + endpoint, e);
    }
  }

  // --- indices and aliases

  /** Whether an index (or an alias) of this name exists. */
  public boolean indexExists(String index) throws IOException {
    return exists("/" + index);
  }

  public boolean aliasExists(String alias) throws IOException {
    return exists("/_alias/" + alias);
  }

  /** The indices behind {@code alias} (none if it does not exist). */
  public Set<String> indicesBehind(String alias) throws IOException {
    if (!aliasExists(alias)) {
      return Set.of();
    }
    Set<String> indices = new LinkedHashSet<>();
    get("/_alias/" + alias).fieldNames().forEachRemaining(indices::add);
    return indices;
  }

  /**
   * Deletes a document at an external version, at its routing, unless a version at least {@code
   * version} is there or it is gone already: then it stays, and the answer is false.
   */
  public boolean deleteBelow(String index, String id, String routing, long version)
      throws IOException {
    String endpoint =
        "/"
            + index
            + "/_doc/"
            + encode(id)
            + "?version_type=external&version="
            + version
            + (routing == null ? "" : "&routing=" + encode(routing));
    try {
      delete(endpoint);
      return true;
    } catch (SearchException e) {
      if (e.status() == 409 || e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** The aliases of {@code index}. */
  public Set<String> aliasesOf(String index) throws IOException {
    Set<String> aliases = new LinkedHashSet<>();
    get("/" + index + "/_alias")
        .path(index)
        .path("aliases")
        .fieldNames()
        .forEachRemaining(aliases::add);
    return aliases;
  }

  /** The indices whose names match {@code pattern} (e.g. {@code products-*}). */
  public List<String> indices(String pattern) throws IOException {
    List<String> names = new ArrayList<>();
    get("/_cat/indices/" + pattern + "?format=json&h=index&expand_wildcards=all")
        .forEach(i -> names.add(i.path("index").asText()));
    return names;
  }

  /**
   * Creates an index from a create-index body as weir writes it (settings and mappings, for
   * Elasticsearch), in this engine's terms ({@link Engine#indexBody}).
   */
  public void createIndex(String index, JsonNode body) throws IOException {
    put("/" + index, engine().indexBody(body));
  }

  /** Deletes an index; one that is not there is no error. */
  public void deleteIndex(String index) throws IOException {
    send("DELETE", "/" + index + "?ignore_unavailable=true", null);
  }

  /** Applies alias actions ({@code add}, {@code remove}) in one atomic update. */
  public void updateAliases(ArrayNode actions) throws IOException {
    ObjectNode body = Json.mapper().createObjectNode();
    body.set("actions", actions);
    post("/_aliases", body);
  }

  /** An alias action: {@code {"add": {"index": ..., "alias": ...}}} (or remove). */
  public static ObjectNode aliasAction(String action, String index, String alias) {
    ObjectNode a = Json.mapper().createObjectNode();
    a.putObject(action).put("index", index).put("alias", alias);
    return a;
  }

  public void refresh(String index) throws IOException {
    post("/" + index + "/_refresh", null);
  }

  public long count(String index) throws IOException {
    return get("/" + index + "/_count").path("count").asLong();
  }

  /** The mappings of an index, as the engine holds them. */
  public JsonNode mappings(String index) throws IOException {
    JsonNode answer = get("/" + index + "/_mapping");
    // An alias's name answers with the index behind it.
    Iterator<JsonNode> indices = answer.elements();
    return indices.hasNext() ? indices.next().path("mappings") : answer.path(index);
  }

  /** Whether the cluster has an ingest pipeline of this id. */
  public boolean pipelineExists(String id) throws IOException {
    try {
      get("/_ingest/pipeline/" + encode(id));
      return true;
    } catch (SearchException e) {
      if (e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** A search's answer ({@code hits.hits} holds the hits). */
  public JsonNode search(String index, Object body) throws IOException {
    return post("/" + index + "/_search", body);
  }

  // --- scanning a whole index

  /** One document a scan found: its id, version and routing (null: routed by its id). */
  public record Hit(String id, long version, String routing) {}

  /** One page of a scan. */
  public interface ScanPage {
    void accept(List<Hit> hits) throws Exception;
  }

  /** How long a scan's context is kept between two pages. */
  private static final String KEEP_ALIVE = "5m";

  /**
   * Every document of {@code index}, in pages of {@code size}, as the index held them when the scan
   * began (any number, any id). On Elasticsearch a point in time sorted by {@code _shard_doc};
   * OpenSearch has no {@code _shard_doc} (and a point in time sorted by {@code _doc} skipped
   * documents across shards), so there a scroll sorted by {@code _doc}.
   */
  public void scan(String index, int size, ScanPage page) throws Exception {
    if (engine().isOpenSearch()) {
      scroll(index, size, page);
    } else {
      pointInTime(index, size, page);
    }
  }

  private void pointInTime(String index, int size, ScanPage page) throws Exception {
    String pit = post("/" + index + "/_pit?keep_alive=" + KEEP_ALIVE, null).path("id").asText();
    try {
      JsonNode after = null;
      while (true) {
        ObjectNode body = scanBody(size);
        body.putObject("pit").put("id", pit).put("keep_alive", KEEP_ALIVE);
        body.put("track_total_hits", false);
        body.putArray("sort").addObject().put("_shard_doc", "asc");
        if (after != null) {
          body.set("search_after", after);
        }
        JsonNode found = post("/_search", body);
        pit = found.path("pit_id").asText(pit);
        JsonNode hits = found.path("hits").path("hits");
        if (!hits.isEmpty()) {
          page.accept(hits(hits));
        }
        if (hits.size() < size) {
          return;
        }
        after = hits.get(hits.size() - 1).get("sort");
      }
    } finally {
      ObjectNode close = Json.mapper().createObjectNode().put("id", pit);
      send("DELETE", "/_pit", close);
    }
  }

  private void scroll(String index, int size, ScanPage page) throws Exception {
    ObjectNode first = scanBody(size);
    first.putArray("sort").add("_doc");
    JsonNode found = post("/" + index + "/_search?scroll=" + KEEP_ALIVE, first);
    String scroll = found.path("_scroll_id").asText();
    try {
      while (true) {
        JsonNode hits = found.path("hits").path("hits");
        if (!hits.isEmpty()) {
          page.accept(hits(hits));
        }
        if (hits.size() < size) {
          return;
        }
        ObjectNode next =
            Json.mapper().createObjectNode().put("scroll", KEEP_ALIVE).put("scroll_id", scroll);
        found = post("/_search/scroll", next);
        scroll = found.path("_scroll_id").asText(scroll);
      }
    } finally {
      ObjectNode close = Json.mapper().createObjectNode();
      close.putArray("scroll_id").add(scroll);
      send("DELETE", "/_search/scroll", close);
    }
  }

  private static ObjectNode scanBody(int size) {
    ObjectNode body = Json.mapper().createObjectNode().put("size", size).put("version", true);
    body.put("_source", false);
    return body;
  }

  private static List<Hit> hits(JsonNode hits) {
    List<Hit> page = new ArrayList<>(hits.size());
    for (JsonNode hit : hits) {
      page.add(
          new Hit(
              hit.path("_id").asText(),
              hit.path("_version").asLong(0),
              hit.path("_routing").asText(null)));
    }
    return page;
  }

  // --- plumbing

  /** A path segment (a document id, a pipeline id), percent-encoded. */
  public static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static HttpEntity entity(Object body, ContentType type) throws IOException {
    byte[] bytes =
        body instanceof byte[] b
            ? b
            : body instanceof String s
                ? s.getBytes(StandardCharsets.UTF_8)
                : Json.mapper().writeValueAsBytes(body);
    return new NByteArrayEntity(bytes, type);
  }

  private static JsonNode json(Response response) throws IOException {
    HttpEntity entity = response.getEntity();
    if (entity == null) {
      return Json.mapper().createObjectNode();
    }
    try (InputStream in = entity.getContent()) {
      JsonNode tree = Json.mapper().readTree(in);
      return tree == null ? Json.mapper().createObjectNode() : tree;
    }
  }

  static SearchException error(String request, ResponseException e) {
    Response response = e.getResponse();
    String body = null;
    try {
      body = response.getEntity() == null ? null : EntityUtils.toString(response.getEntity());
    } catch (IOException unreadable) {
      body = null;
    }
    return SearchException.of(request, response.getStatusLine().getStatusCode(), body);
  }

  @Override
  public void close() throws IOException {
    rest.close();
  }
}
