package dev.weir.backfill;

import dev.weir.search.ProductsIndex;
import dev.weir.search.SearchDocument;
import dev.weir.search.SearchDocumentStore;
import dev.weir.search.copy.DocumentCopy.CopiedDocument;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The built-in products document's copy, {@code search_document}: ids are product ids (numbers,
 * written as their digits), splits numeric ranges of them, the mapping the one in schemas/.
 */
final class ProductsCopy implements CopySource {

  private static final long serialVersionUID = 1L;

  private final String alias;

  ProductsCopy(String alias) {
    this.alias = alias;
  }

  @Override
  public String table() {
    return "search_document";
  }

  @Override
  public String alias() {
    return alias;
  }

  @Override
  public String mapping() {
    return ProductsIndex.mapping();
  }

  @Override
  public String mappingOrigin() {
    return "schemas/elasticsearch/products.mapping.json";
  }

  @Override
  public long count(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM search_document")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public List<Split> splits(Connection c, int size) throws SQLException {
    List<String> starts = new ArrayList<>();
    for (long start : SearchDocumentStore.splitStarts(c, size)) {
      starts.add(Long.toString(start));
    }
    return Split.between(starts);
  }

  @Override
  public Map<String, byte[]> contentHashes(Connection c, Split split) throws SQLException {
    Map<String, byte[]> hashes = new LinkedHashMap<>();
    SearchDocumentStore.contentHashes(c, from(split), to(split))
        .forEach((id, hash) -> hashes.put(Long.toString(id), hash));
    return hashes;
  }

  @Override
  public List<CopiedDocument> read(Connection c, Split split) throws SQLException {
    return documents(SearchDocumentStore.readRange(c, from(split), to(split)));
  }

  @Override
  public List<CopiedDocument> read(Connection c, Collection<String> ids) throws SQLException {
    List<Long> productIds = new ArrayList<>();
    for (String id : ids) {
      Long productId = productId(id);
      if (productId != null) {
        productIds.add(productId);
      }
    }
    return productIds.isEmpty() ? List.of() : documents(SearchDocumentStore.read(c, productIds));
  }

  /** An id that is not a product id is not in the copy either. */
  @Override
  public List<String> missing(Connection c, Collection<String> ids) throws SQLException {
    List<String> missing = new ArrayList<>();
    List<Long> productIds = new ArrayList<>();
    for (String id : ids) {
      Long productId = productId(id);
      if (productId == null) {
        missing.add(id);
      } else {
        productIds.add(productId);
      }
    }
    if (productIds.isEmpty()) {
      return missing;
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT id FROM unnest(?::bigint[]) AS ids(id) WHERE NOT EXISTS"
                + " (SELECT 1 FROM search_document d WHERE d.product_id = ids.id)")) {
      s.setArray(1, c.createArrayOf("bigint", productIds.toArray()));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          missing.add(Long.toString(rs.getLong(1)));
        }
      }
    }
    return missing;
  }

  /** The split's first product id (inclusive). */
  static long from(Split split) {
    return split.from() == null ? Long.MIN_VALUE : Long.parseLong(split.from());
  }

  /** The split's last product id (inclusive): the next split's first, less one. */
  static long to(Split split) {
    return split.until() == null ? Long.MAX_VALUE : Long.parseLong(split.until()) - 1;
  }

  /** The product id an Elasticsearch id is (its digits), or null. */
  static Long productId(String id) {
    try {
      return Long.parseLong(id);
    } catch (NumberFormatException notAProduct) {
      return null;
    }
  }

  private static List<CopiedDocument> documents(List<SearchDocument> docs) {
    List<CopiedDocument> copied = new ArrayList<>(docs.size());
    for (SearchDocument d : docs) {
      copied.add(
          new CopiedDocument(Long.toString(d.productId), d.docVersion, d.contentHash, d.toJson()));
    }
    return copied;
  }
}
