package dev.weir.bench.scale;

import dev.weir.cli.BundledDocuments;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The generated store of the documents-at-scale benchmark (schemas/documents/orders.sql, one
 * document per order, orders.json): made in the database by {@code INSERT … SELECT} over {@code
 * generate_series}, nothing sent row by row. Deterministic: the same size gives the same rows.
 *
 * <p>Every tenth order has one line of a product of brand 1, the <b>hot brand</b>, and no other
 * order has any: a rename of brand 1 reaches exactly a tenth of the documents.
 */
final class ScaleStore {

  /** The tables of the store, in the order they are filled (parents first). */
  static final List<String> TABLES =
      List.of("brand", "category", "product", "customer", "orders", "order_line");

  /** The brand every tenth order holds a product of, and no other order does. */
  static final long HOT_BRAND = 1;

  /** Categories: 10 at the top, 10 under each, 10 under each of those (1,110). */
  private static final int CATEGORY_FANOUT = 10;

  /**
   * How much of each table there is for {@code roots} orders: lines 1 to 7 per order (4 on
   * average), a customer per 4 orders, a product per 20, a brand per 2,000 (at least 20 and 200),
   * the hot brand's products as many as a brand's on average.
   */
  record Size(long roots) {
    long customers() {
      return Math.max(1, roots / 4);
    }

    long products() {
      return Math.max(200, roots / 20);
    }

    long brands() {
      return Math.max(20, roots / 2_000);
    }

    long hotProducts() {
      return Math.max(10, products() / brands());
    }

    /** The documents a rename of the hot brand reaches. */
    long hotDocuments() {
      return roots / 10;
    }
  }

  /**
   * What was generated: rows by table, the seconds it took, and the bytes the tables take with
   * their indexes.
   */
  record Source(Map<String, Long> rows, double seconds, long bytes) {
    long totalRows() {
      return rows.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private ScaleStore() {}

  /** Creates and fills the store at {@code url} (an empty database). */
  static Source generate(WeirConfig config, String url, Size size) throws Exception {
    long start = System.nanoTime();
    try (Connection c = PostgresConnectionProvider.open(config, url);
        Statement s = c.createStatement()) {
      s.execute(BundledDocuments.read("orders.sql"));
      for (String sql : fill(size)) {
        s.execute(sql);
      }
      s.execute(BundledDocuments.read("orders-keys.sql"));
      s.execute("ANALYZE");
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Source(rows(c), seconds, bytes(c));
    }
  }

  /** The statements that fill the tables, parents first. */
  static List<String> fill(Size size) {
    long n = size.roots();
    long hot = size.hotProducts();
    long others = size.products() - hot;
    int f = CATEGORY_FANOUT;
    return List.of(
        "INSERT INTO brand SELECT i, 'Brand ' || i || ' ' || md5(i::text)"
            + " FROM generate_series(1, "
            + size.brands()
            + ") i",
        // Top level 1..10, then 11..110 under them, then 111..1110 under those.
        "INSERT INTO category SELECT i, 'Category ' || i,"
            + " CASE WHEN i <= "
            + f
            + " THEN NULL WHEN i <= "
            + (f + f * f)
            + " THEN 1 + (i - "
            + (f + 1)
            + ") / "
            + f
            + " ELSE "
            + (f + 1)
            + " + (i - "
            + (f + f * f + 1)
            + ") / "
            + f
            + " END FROM generate_series(1, "
            + (f + f * f + f * f * f)
            + ") i",
        // The hot brand's products are 1..hot; every other product has another brand. Products
        // sit in the leaves of the category tree.
        "INSERT INTO product SELECT i, 'SKU-' || lpad(i::text, 8, '0'),"
            + " 'Product ' || i || ' ' || substr(md5(i::text), 1, 12),"
            + " CASE WHEN i <= "
            + hot
            + " THEN "
            + HOT_BRAND
            + " ELSE 2 + i % "
            + (size.brands() - 1)
            + " END, "
            + (f + f * f + 1)
            + " + i % "
            + (f * f * f)
            + " FROM generate_series(1, "
            + size.products()
            + ") i",
        "INSERT INTO customer SELECT i, 'Customer ' || i, 'customer' || i || '@example.com',"
            + " (ARRAY['Lisbon', 'Oslo', 'Lyon', 'Turin', 'Porto', 'Ghent'])[1 + i % 6]"
            + " FROM generate_series(1, "
            + size.customers()
            + ") i",
        "INSERT INTO orders SELECT i, 1 + "
            + hash("i")
            + " % "
            + size.customers()
            + ", (ARRAY['placed', 'paid', 'shipped', 'delivered', 'returned'])[1 + i % 5],"
            + " date '2024-01-01' + (i % 365)::int, ("
            + hash("i + 7")
            + " % 100000) / 100.0,"
            + " 'Leave at the door, ring twice: ' || md5(i::text), 0"
            + " FROM generate_series(1, "
            + n
            + ") i",
        // Lines 1..7 of order i have the ids 8(i-1)+j; line 1 of every tenth order is of one of
        // the hot brand's products, every other line of another product.
        "INSERT INTO order_line SELECT 8 * (i - 1) + j, i,"
            + " CASE WHEN i % 10 = 0 AND j = 1 THEN 1 + (i / 10) % "
            + hot
            + " ELSE "
            + (hot + 1)
            + " + "
            + hash("8 * (i - 1) + j")
            + " % "
            + others
            + " END,"
            + " 1 + "
            + hash("i * 31 + j")
            + " % 5, 1 + ("
            + hash("i * 17 + j")
            + " % 50000) / 100.0"
            + " FROM generate_series(1, "
            + n
            + ") i, generate_series(1, 1 + "
            + hash("i * 13")
            + " % 7) j");
  }

  /** A non-negative pseudo-random integer of {@code expression} (PostgreSQL's hash of a bigint). */
  private static String hash(String expression) {
    return "(hashint8(" + expression + ")::bigint + 2147483648)";
  }

  /** Rows by table. */
  static Map<String, Long> rows(Connection c) throws SQLException {
    Map<String, Long> rows = new LinkedHashMap<>();
    for (String table : TABLES) {
      try (ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM " + table)) {
        rs.next();
        rows.put(table, rs.getLong(1));
      }
    }
    return rows;
  }

  /** The bytes the store's tables take, with their indexes and TOAST. */
  static long bytes(Connection c) throws SQLException {
    return tableBytes(c, TABLES);
  }

  /** The bytes {@code tables} take, with their indexes and TOAST. */
  static long tableBytes(Connection c, List<String> tables) throws SQLException {
    long bytes = 0;
    for (String table : tables) {
      try (PreparedStatement s = c.prepareStatement("SELECT pg_total_relation_size(?::regclass)")) {
        s.setString(1, table);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          bytes += rs.getLong(1);
        }
      }
    }
    return bytes;
  }

  /** The documents a rename of the hot brand reaches, counted in the source. */
  static long hotDocuments(Connection c) throws SQLException {
    try (ResultSet rs =
        c.createStatement()
            .executeQuery(
                "SELECT count(DISTINCT l.order_id) FROM order_line l"
                    + " JOIN product p ON p.id = l.product_id WHERE p.brand_id = "
                    + HOT_BRAND)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Every order's document as SQL builds it from the source tables, by order id, as JSON text: what
   * orders.json declares (a category path of at most 3 levels, lines by their id), without the
   * content hash weir adds. One pass of hash joins over each table.
   */
  static final String DOCUMENTS_SQL =
      "WITH path AS ("
          + " SELECT c.id, CASE WHEN g.id IS NOT NULL THEN json_build_array(g.name, p.name, c.name)"
          + " WHEN p.id IS NOT NULL THEN json_build_array(p.name, c.name)"
          + " ELSE json_build_array(c.name) END AS names"
          + " FROM category c LEFT JOIN category p ON p.id = c.parent_id"
          + " LEFT JOIN category g ON g.id = p.parent_id),"
          + " product_value AS ("
          + " SELECT p.id, json_build_object('sku', p.sku, 'name', p.name, 'brand', b.name,"
          + " 'category_path', path.names) AS value"
          + " FROM product p LEFT JOIN brand b ON b.id = p.brand_id"
          + " LEFT JOIN path ON path.id = p.category_id),"
          + " line_values AS ("
          + " SELECT l.order_id, json_agg(json_build_object('id', l.id, 'quantity', l.quantity,"
          + " 'unit_price', l.unit_price, 'product', pv.value) ORDER BY l.id) AS lines"
          + " FROM order_line l LEFT JOIN product_value pv ON pv.id = l.product_id"
          + " GROUP BY l.order_id)"
          + " SELECT o.id, json_build_object('order_id', o.id, 'customer_id', o.customer_id,"
          + " 'status', o.status, 'placed_on', o.placed_on, 'total', o.total, 'note', o.note,"
          + " 'revision', o.revision,"
          + " 'customer', CASE WHEN c.id IS NULL THEN NULL"
          + " ELSE json_build_object('name', c.name, 'email', c.email, 'city', c.city) END,"
          + " 'lines', COALESCE(lv.lines, '[]'::json))::text"
          + " FROM orders o LEFT JOIN customer c ON c.id = o.customer_id"
          + " LEFT JOIN line_values lv ON lv.order_id = o.id ORDER BY o.id";
}
