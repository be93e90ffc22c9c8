package dev.weir.bench.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.schema.Json;
import java.util.ArrayList;
import java.util.List;

/** A document as the engine holds it: id, version, source (JSON). */
public record IndexedDocument(String id, long version, byte[] source) {

  /** Every document of {@code index} (an index or an alias), by product_id. */
  public static List<IndexedDocument> readAll(SearchCluster es, String index) throws Exception {
    List<IndexedDocument> documents = new ArrayList<>();
    scan(es, index, "product_id", documents::addAll);
    return documents;
  }

  /** What a scan hands each page of documents to. */
  public interface Page {
    void accept(List<IndexedDocument> documents) throws Exception;
  }

  /**
   * Every document of {@code index} in pages sorted by the numeric field {@code sortField}
   * (search_after: any number of documents, one page in memory at a time).
   */
  public static void scan(SearchCluster es, String index, String sortField, Page page)
      throws Exception {
    JsonNode after = null;
    while (true) {
      ObjectNode search = Json.mapper().createObjectNode().put("size", 1000).put("version", true);
      search.putArray("sort").addObject().put(sortField, "asc");
      if (after != null) {
        search.set("search_after", after);
      }
      JsonNode hits = es.search(index, search).path("hits").path("hits");
      if (hits.isEmpty()) {
        return;
      }
      List<IndexedDocument> documents = new ArrayList<>(hits.size());
      for (JsonNode hit : hits) {
        documents.add(
            new IndexedDocument(
                hit.path("_id").asText(),
                hit.path("_version").asLong(),
                Json.mapper().writeValueAsBytes(hit.get("_source"))));
      }
      page.accept(documents);
      after = hits.get(hits.size() - 1).get("sort");
    }
  }
}
