package dev.weir.search;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.schema.Json;
import dev.weir.search.index.DocumentIndex;
import dev.weir.sink.elasticsearch.DocumentOperation;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.connector.base.sink.writer.ElementConverter;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;

/**
 * The products index: its mapping (from schemas/), its alias, and the bulk operation per document.
 */
public final class ProductsIndex {

  static final String MAPPING_RESOURCE = "weir/schemas/elasticsearch/products.mapping.json";

  private ProductsIndex() {}

  /** The mapping and settings of schemas/elasticsearch/products.mapping.json. */
  public static String mapping() {
    return resource(MAPPING_RESOURCE);
  }

  /**
   * The example queries of the search contract (schemas/elasticsearch/examples/NAME.json), in the
   * order docs/search-contract.md shows them.
   */
  public static final List<String> EXAMPLE_QUERIES =
      List.of("full-text", "brand-and-category", "price-range");

  /** The body of example query {@code name} (one of {@link #EXAMPLE_QUERIES}). */
  public static String exampleQuery(String name) {
    return resource("weir/schemas/elasticsearch/examples/" + name + ".json");
  }

  /**
   * Sends a search request body to {@code alias} as it is, the way an API consumer does ({@code
   * POST /alias/_search}); the hits' sources, best first.
   */
  public static List<ObjectNode> search(ElasticsearchClient es, String alias, String body)
      throws IOException {
    Request request = new Request("POST", "/" + alias + "/_search");
    request.setJsonEntity(body);
    Response response = ElasticsearchClients.rest(es).performRequest(request);
    try (InputStream in = response.getEntity().getContent()) {
      List<ObjectNode> sources = new ArrayList<>();
      Json.mapper()
          .readTree(in)
          .path("hits")
          .path("hits")
          .forEach(hit -> sources.add((ObjectNode) hit.get("_source")));
      return sources;
    }
  }

  private static String resource(String name) {
    try (InputStream in = ProductsIndex.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Makes sure {@code alias} exists: if not, creates {@code index} from the mapping and points the
   * alias at it. Returns the indices behind the alias.
   */
  public static Set<String> ensureAlias(ElasticsearchSettings settings, String alias, String index)
      throws IOException {
    return DocumentIndex.ensureAlias(settings, alias, index, mapping());
  }

  /** Creates an index from the mapping in schemas/. */
  public static void create(ElasticsearchClient es, String index) throws IOException {
    DocumentIndex.create(es, index, mapping());
  }

  /**
   * {@link #converter} through {@code alias}, which must exist: a write never creates an index of
   * its name (see {@link DocumentOperation#requiringAlias()}). The streaming job's.
   */
  public static ElementConverter<SearchDocument, DocumentOperation> aliasConverter(String alias) {
    ElementConverter<SearchDocument, DocumentOperation> direct = converter(alias);
    return (doc, context) -> direct.apply(doc, context).requiringAlias();
  }

  /** Index (external version = document version) or delete, into {@code target}. */
  public static ElementConverter<SearchDocument, DocumentOperation> converter(String target) {
    return (doc, context) ->
        doc.deleted
            ? DocumentOperation.delete(target, Long.toString(doc.productId), doc.docVersion)
            : DocumentOperation.index(
                target, Long.toString(doc.productId), doc.docVersion, doc.toJson());
  }
}
