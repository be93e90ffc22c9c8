package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.sink.BufferedStoreSink;
import dev.weir.search.SearchDocument.Column;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * search_document, PostgreSQL's copy of the documents. A changed document is an UPDATE naming only
 * its changed columns (PostgreSQL rewrites the TOAST chunks of any large value it is sent, changed
 * or not, so an unchanged description is never sent). Every write is guarded by the document
 * version: a replayed or late document never overwrites a newer one.
 */
public final class SearchDocumentStore
    implements BufferedStoreSink.Store<SearchDocument>, CopyReader {

  private final Connection connection;
  private long rows;
  private long statements;

  public SearchDocumentStore(Connection connection) throws SQLException {
    this.connection = connection;
    connection.setAutoCommit(false);
  }

  public static SearchDocumentStore open(WeirConfig config) throws SQLException {
    return new SearchDocumentStore(PostgresConnectionProvider.open(config));
  }

  @Override
  public void write(Collection<SearchDocument> batch) throws SQLException {
    try {
      List<SearchDocument> inserts = new ArrayList<>();
      List<SearchDocument> deletes = new ArrayList<>();
      Map<Integer, List<SearchDocument>> updates = new LinkedHashMap<>();
      for (SearchDocument d : batch) {
        if (d.deleted) {
          deletes.add(d);
        } else if (d.isNew) {
          inserts.add(d);
        } else {
          updates.computeIfAbsent(d.changed, k -> new ArrayList<>()).add(d);
        }
      }
      for (List<SearchDocument> sameColumns : updates.values()) {
        inserts.addAll(update(sameColumns));
      }
      insert(inserts);
      delete(deletes);
      connection.commit();
    } catch (SQLException e) {
      connection.rollback();
      throw e;
    }
  }

  /** UPDATE of the changed columns; returns the documents whose row is missing. */
  private List<SearchDocument> update(List<SearchDocument> docs) throws SQLException {
    List<Column> columns = new ArrayList<>(docs.get(0).changedColumns());
    String set =
        columns.stream().map(c -> c.sql + " = " + placeholder(c)).collect(Collectors.joining(", "));
    String sql =
        "UPDATE search_document SET "
            + (set.isEmpty() ? "" : set + ", ")
            + "content_hash = ?, doc_version = ? WHERE product_id = ? AND doc_version < ?";
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      for (SearchDocument d : docs) {
        int i = 1;
        for (Column c : columns) {
          bind(s, i++, c, d);
        }
        s.setBytes(i++, d.contentHash);
        s.setLong(i++, d.docVersion);
        s.setLong(i++, d.productId);
        s.setLong(i, d.docVersion);
        s.addBatch();
      }
      int[] counts = s.executeBatch();
      statements++;
      List<SearchDocument> notUpdated = new ArrayList<>();
      for (int k = 0; k < counts.length; k++) {
        if (counts[k] == 0) {
          notUpdated.add(docs.get(k));
        } else {
          rows++;
        }
      }
      return notUpdated; // missing (inserted next) or newer already (the insert does nothing)
    }
  }

  /**
   * INSERT of whole documents; on conflict, the newer version's columns are set, each large one
   * only if it differs (so that a re-sent equal value does not rewrite its TOAST chunks).
   */
  private void insert(List<SearchDocument> docs) throws SQLException {
    if (docs.isEmpty()) {
      return;
    }
    StringBuilder sql = new StringBuilder("INSERT INTO search_document (product_id");
    StringBuilder values = new StringBuilder(" VALUES (?");
    StringBuilder set = new StringBuilder();
    for (Column c : Column.values()) {
      sql.append(", ").append(c.sql);
      values.append(", ").append(placeholder(c));
      set.append(c.sql)
          .append(" = CASE WHEN search_document.")
          .append(c.sql)
          .append(" IS NOT DISTINCT FROM excluded.")
          .append(c.sql)
          .append(" THEN search_document.")
          .append(c.sql)
          .append(" ELSE excluded.")
          .append(c.sql)
          .append(" END, ");
    }
    sql.append(", content_hash, doc_version)")
        .append(values)
        .append(", ?, ?) ON CONFLICT (product_id) DO UPDATE SET ")
        .append(set)
        .append("content_hash = excluded.content_hash, doc_version = excluded.doc_version")
        .append(" WHERE search_document.doc_version < excluded.doc_version");
    try (PreparedStatement s = connection.prepareStatement(sql.toString())) {
      for (SearchDocument d : docs) {
        int i = 1;
        s.setLong(i++, d.productId);
        for (Column c : Column.values()) {
          bind(s, i++, c, d);
        }
        s.setBytes(i++, d.contentHash);
        s.setLong(i, d.docVersion);
        s.addBatch();
      }
      for (int count : s.executeBatch()) {
        rows += count;
      }
      statements++;
    }
  }

  private void delete(List<SearchDocument> docs) throws SQLException {
    if (docs.isEmpty()) {
      return;
    }
    try (PreparedStatement s =
        connection.prepareStatement(
            "DELETE FROM search_document WHERE product_id = ? AND doc_version < ?")) {
      for (SearchDocument d : docs) {
        s.setLong(1, d.productId);
        s.setLong(2, d.docVersion);
        s.addBatch();
      }
      for (int count : s.executeBatch()) {
        rows += count;
      }
      statements++;
    }
  }

  private static String placeholder(Column c) {
    return switch (c) {
      case ATTRIBUTES -> "?::jsonb";
      case UPDATED_AT -> "?::timestamptz";
      default -> "?";
    };
  }

  private void bind(PreparedStatement s, int i, Column c, SearchDocument d) throws SQLException {
    switch (c) {
      case SKU -> s.setString(i, d.sku);
      case NAME -> s.setString(i, d.name);
      case DESCRIPTION -> s.setString(i, d.description);
      case ATTRIBUTES -> s.setString(i, d.attributes);
      case BRAND_ID -> s.setObject(i, d.brandId, Types.BIGINT);
      case BRAND_NAME -> s.setString(i, d.brandName);
      case CATEGORY_ID -> s.setObject(i, d.categoryId, Types.BIGINT);
      case CATEGORY_PATH -> {
        Array path =
            d.categoryPath == null
                ? null
                : connection.createArrayOf("text", d.categoryPath.toArray());
        s.setArray(i, path);
      }
      case PRICE -> s.setBigDecimal(i, d.price);
      case CURRENCY -> s.setString(i, d.currency);
      case PRICE_VERSION -> s.setObject(i, d.priceVersion, Types.BIGINT);
      case UPDATED_AT -> s.setString(i, d.updatedAt);
    }
  }

  /**
   * The first product id of each run of {@code size} documents of the copy, in order (empty when
   * the copy is): splits of equal size however the ids are spread (ids 1 and 2^63 - 1 make two
   * splits, not 2^53). One pass over the primary key.
   */
  public static long[] splitStarts(Connection c, int size) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT product_id FROM (SELECT product_id, row_number() OVER (ORDER BY product_id) AS n"
                + " FROM search_document) numbered WHERE n % ? = 1 ORDER BY product_id")) {
      s.setInt(1, size);
      List<Long> starts = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          starts.add(rs.getLong(1));
        }
      }
      return starts.stream().mapToLong(Long::longValue).toArray();
    }
  }

  /** The documents of the copy with {@code from <= product_id <= to}, by product id. */
  public static List<SearchDocument> readRange(Connection c, long from, long to)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            SELECT_DOCUMENTS + " WHERE product_id >= ? AND product_id <= ? ORDER BY product_id")) {
      s.setLong(1, from);
      s.setLong(2, to);
      return documents(s);
    }
  }

  /** The documents of the copy with these product ids (those it has), by product id. */
  public static List<SearchDocument> read(Connection c, Collection<Long> productIds)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(SELECT_DOCUMENTS + " WHERE product_id = ANY (?) ORDER BY product_id")) {
      s.setArray(1, c.createArrayOf("bigint", productIds.toArray()));
      return documents(s);
    }
  }

  /**
   * product id → content hash (null if none) of the copy's documents with {@code from <= product_id
   * <= to}: what to compare before reading whole documents, which are large.
   */
  public static Map<Long, byte[]> contentHashes(Connection c, long from, long to)
      throws SQLException {
    Map<Long, byte[]> hashes = new java.util.LinkedHashMap<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT product_id, content_hash FROM search_document"
                + " WHERE product_id >= ? AND product_id <= ? ORDER BY product_id")) {
      s.setLong(1, from);
      s.setLong(2, to);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          hashes.put(rs.getLong(1), rs.getBytes(2));
        }
      }
    }
    return hashes;
  }

  private static final String SELECT_DOCUMENTS =
      "SELECT product_id, sku, name, description, attributes::text, brand_id, brand_name,"
          + " category_id, category_path, price, currency, price_version,"
          + " to_json(updated_at) #>> '{}', content_hash, doc_version FROM search_document";

  private static List<SearchDocument> documents(PreparedStatement s) throws SQLException {
    List<SearchDocument> docs = new ArrayList<>();
    try (ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        SearchDocument d = new SearchDocument();
        d.productId = rs.getLong(1);
        d.sku = rs.getString(2);
        d.name = rs.getString(3);
        d.description = rs.getString(4);
        d.attributes = rs.getString(5);
        d.brandId = (Long) rs.getObject(6, Long.class);
        d.brandName = rs.getString(7);
        d.categoryId = (Long) rs.getObject(8, Long.class);
        Array path = rs.getArray(9);
        d.categoryPath = path == null ? null : List.of((String[]) path.getArray());
        d.price = rs.getBigDecimal(10);
        d.currency = rs.getString(11) == null ? null : rs.getString(11).trim();
        d.priceVersion = (Long) rs.getObject(12, Long.class);
        d.updatedAt = rs.getString(13);
        d.contentHash = rs.getBytes(14);
        d.docVersion = rs.getLong(15);
        docs.add(d);
      }
    }
    return docs;
  }

  @Override
  public String[] largeValues(long productId) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT description, attributes::text FROM search_document WHERE product_id = ?")) {
      s.setLong(1, productId);
      try (ResultSet rs = s.executeQuery()) {
        String[] values =
            rs.next() ? new String[] {rs.getString(1), rs.getString(2)} : new String[2];
        connection.commit();
        return values;
      }
    }
  }

  @Override
  public long rowsWritten() {
    return rows;
  }

  /** Statements sent (each a batch). */
  public long statements() {
    return statements;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
