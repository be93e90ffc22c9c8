package dev.weir.documents.index;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.SearchCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The search contract of the products document for API consumers: the example queries of
 * schemas/elasticsearch/examples, quoted in docs/search-contract.md, and how a consumer sends them.
 */
public final class SearchContract {

  /** The example queries, in the order docs/search-contract.md shows them. */
  public static final List<String> EXAMPLE_QUERIES =
      List.of("full-text", "brand-and-category", "price-range");

  private SearchContract() {}

  /** The body of example query {@code name} (one of {@link #EXAMPLE_QUERIES}). */
  public static String exampleQuery(String name) {
    String resource = "weir/schemas/elasticsearch/examples/" + name + ".json";
    try (InputStream in = SearchContract.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Sends a search request body to {@code alias} as it is, the way an API consumer does ({@code
   * POST /alias/_search}); the hits' sources, best first.
   */
  public static List<ObjectNode> search(SearchCluster cluster, String alias, String body)
      throws IOException {
    List<ObjectNode> sources = new ArrayList<>();
    cluster
        .search(alias, body)
        .path("hits")
        .path("hits")
        .forEach(hit -> sources.add((ObjectNode) hit.get("_source")));
    return sources;
  }
}
