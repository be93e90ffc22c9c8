package dev.weir.bench.support;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import java.util.ArrayList;
import java.util.List;

/** A document as Elasticsearch holds it: id, version, source. */
public record IndexedDocument(String id, long version, JsonData source) {

  /** Every document of {@code index} (an index or an alias), by product_id. */
  public static List<IndexedDocument> readAll(ElasticsearchClient es, String index)
      throws Exception {
    List<IndexedDocument> documents = new ArrayList<>();
    List<FieldValue> after = null;
    while (true) {
      List<FieldValue> from = after;
      var hits =
          es.search(
                  s -> {
                    s.index(index)
                        .size(1000)
                        .version(true)
                        .sort(o -> o.field(f -> f.field("product_id").order(SortOrder.Asc)));
                    return from == null ? s : s.searchAfter(from);
                  },
                  JsonData.class)
              .hits()
              .hits();
      if (hits.isEmpty()) {
        return documents;
      }
      for (Hit<JsonData> hit : hits) {
        documents.add(new IndexedDocument(hit.id(), hit.version(), hit.source()));
      }
      after = hits.get(hits.size() - 1).sort();
    }
  }
}
