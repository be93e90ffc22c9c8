package dev.weir.cli.load;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.schema.Json;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The catalog service's database (not weir's: the upstream search-index captures), with realistic
 * data: brands, a category tree three levels deep, products whose descriptions are several kB (so
 * PostgreSQL TOASTs them), and prices on {@code pricing.events}. {@link #change} applies the kinds
 * of changes such a catalog sees.
 */
public final class CatalogLoader {

  /** The catalog's tables, as the catalog service would create them. */
  public static final String DDL =
      """
      CREATE TABLE IF NOT EXISTS brand (id bigint PRIMARY KEY, name text NOT NULL);
      CREATE TABLE IF NOT EXISTS category (
          id bigint PRIMARY KEY, name text NOT NULL, parent_id bigint REFERENCES category (id));
      CREATE TABLE IF NOT EXISTS product (
          id bigint PRIMARY KEY,
          sku text NOT NULL,
          name text NOT NULL,
          description text,
          attributes jsonb,
          brand_id bigint REFERENCES brand (id),
          category_id bigint REFERENCES category (id),
          updated_at timestamptz NOT NULL DEFAULT now());
      """;

  private static final String[] WORDS =
      ("lightweight durable ergonomic waterproof breathable recycled organic cotton steel aluminium"
              + " bamboo ceramic cordless compact foldable adjustable premium classic modern vintage"
              + " handcrafted insulated wireless rechargeable portable stackable washable reinforced"
              + " quilted padded stretch slim relaxed everyday outdoor travel kitchen garden office"
              + " warranty included assembly required dishwasher safe machine washable finish grip"
              + " capacity battery hours charge colour matte gloss texture seam zipper strap pocket")
          .split(" ");
  private static final String[] NOUNS = {
    "Backpack", "Kettle", "Jacket", "Lamp", "Chair", "Headphones", "Mug", "Tent", "Drill", "Sneaker"
  };

  /** Characters of a generated description: ~6 kB, TOASTed (PostgreSQL moves rows over ~2 kB). */
  public static final int DEFAULT_DESCRIPTION_CHARS = 6_000;

  private final Random random;
  private final int descriptionChars;
  private long priceVersion;

  /** The last price (in cents) this loader sent for each product. */
  private final Map<Long, Long> lastCents = new HashMap<>();

  public CatalogLoader(long seed) {
    this(seed, DEFAULT_DESCRIPTION_CHARS);
  }

  /** Descriptions of about {@code descriptionChars} characters. */
  public CatalogLoader(long seed, int descriptionChars) {
    this.random = new Random(seed);
    this.descriptionChars = descriptionChars;
  }

  /** What a load did: products filled (0 if the catalog had some), prices sent, changes by kind. */
  public record Result(int filled, long prices, Map<String, Integer> changes) {}

  /**
   * Creates the catalog's tables if missing; fills an empty catalog ({@code products} products,
   * {@code brands} brands, a price for each); then applies {@code changes} realistic changes, about
   * a third of them price changes, {@code pause} apart.
   */
  public Result load(
      WeirConfig config,
      String url,
      String pricingTopic,
      int products,
      int brands,
      int changes,
      Duration pause)
      throws SQLException, InterruptedException {
    createTables(config, url);
    KafkaTopics.createTopicsIfMissing(config, List.of(pricingTopic), 2);
    Map<String, Integer> applied = new TreeMap<>();
    try (Connection c = PostgresConnectionProvider.open(config, url);
        EventProducer prices = new EventProducer(config)) {
      int existing = count(c, "product");
      int filled = 0;
      if (existing == 0) {
        fill(config, url, products, brands);
        for (long id = 1; id <= products; id++) {
          sendPrice(prices, pricingTopic, id);
        }
        filled = products;
      }
      int known = Math.max(existing, filled);
      int knownBrands = Math.max(1, count(c, "brand"));
      for (int i = 0; i < changes && known > 0; i++) {
        String kind;
        if (random.nextInt(3) == 0) {
          sendPrice(prices, pricingTopic, 1 + random.nextInt(known));
          kind = "price change";
        } else {
          kind = change(c, known, knownBrands);
        }
        applied.merge(kind, 1, Integer::sum);
        if (!pause.isZero()) {
          Thread.sleep(pause.toMillis());
        }
      }
      prices.flush();
      return new Result(filled, prices.sent(), applied);
    }
  }

  private void sendPrice(EventProducer producer, String topic, long productId) {
    // Versions grow across runs of the loader: the highest version wins in the join.
    priceVersion = Math.max(priceVersion + 1, System.currentTimeMillis());
    producer.send(
        topic,
        Long.toString(productId).getBytes(StandardCharsets.UTF_8),
        price(productId, priceVersion));
  }

  private static int count(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  public static void createTables(WeirConfig config, String url) throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config, url);
        Statement s = c.createStatement()) {
      s.execute(DDL);
    }
  }

  /** Brands 1..brands, a category tree (roots 1..4, each with children, each with children). */
  public void fill(WeirConfig config, String url, int products, int brands) throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      c.setAutoCommit(false);
      try (PreparedStatement b = c.prepareStatement("INSERT INTO brand VALUES (?, ?)")) {
        for (int i = 1; i <= brands; i++) {
          b.setLong(1, i);
          b.setString(2, "Brand " + word() + " " + i);
          b.addBatch();
        }
        b.executeBatch();
      }
      try (PreparedStatement cat = c.prepareStatement("INSERT INTO category VALUES (?, ?, ?)")) {
        String[] roots = {"Outdoor", "Home", "Electronics", "Apparel"};
        for (int r = 0; r < roots.length; r++) {
          long root = r + 1;
          insertCategory(cat, root, roots[r], null);
          for (int k = 1; k <= 3; k++) {
            long child = root * 10 + k;
            insertCategory(cat, child, roots[r] + " " + capitalized(word()), root);
            for (int m = 1; m <= 3; m++) {
              insertCategory(cat, child * 10 + m, capitalized(word()) + " " + m, child);
            }
          }
        }
        cat.executeBatch();
      }
      try (PreparedStatement p =
          c.prepareStatement(
              "INSERT INTO product (id, sku, name, description, attributes, brand_id, category_id)"
                  + " VALUES (?, ?, ?, ?, ?::jsonb, ?, ?)")) {
        for (int i = 1; i <= products; i++) {
          p.setLong(1, i);
          p.setString(2, String.format("SKU-%06d", i));
          p.setString(3, productName());
          p.setString(4, description(descriptionChars));
          p.setString(
              5,
              "{\"colour\":\"" + word() + "\",\"weight_g\":" + (100 + random.nextInt(5000)) + "}");
          p.setLong(6, 1 + random.nextInt(brands));
          p.setLong(7, leafCategory());
          p.addBatch();
          if (i % 500 == 0) {
            p.executeBatch();
          }
        }
        p.executeBatch();
      }
      c.commit();
    }
  }

  /**
   * The products document the search-index job would make of a generated product (its description
   * like {@link #fill}'s), fields in {@code plan}'s order: for filling a copy directly, e.g. the
   * backfill benchmark.
   */
  public DocumentChange document(DocumentPlan plan, long id, long version) {
    long brandId = 1L + random.nextInt(50);
    ObjectNode fields = Json.mapper().createObjectNode();
    fields.put("product_id", id);
    fields.put("sku", String.format("SKU-%06d", id));
    fields.put("name", productName());
    fields.put("description", description(descriptionChars));
    fields
        .putObject("attributes")
        .put("colour", word())
        .put("weight_g", 100 + random.nextInt(5000));
    fields.put("brand_id", brandId);
    fields.put("category_id", leafCategory());
    fields.put("updated_at", "2026-11-21T10:00:00Z");
    fields.put("brand_name", "Brand " + word() + " " + brandId);
    fields
        .putArray("category_path")
        .add("Outdoor")
        .add("Outdoor " + capitalized(word()))
        .add(capitalized(word()));
    fields.put(
        "price",
        BigDecimal.valueOf(500 + random.nextInt(50_000))
            .divide(BigDecimal.valueOf(100), 2, RoundingMode.UNNECESSARY));
    fields.put("currency", "EUR");
    return DocumentChange.whole(plan, Long.toString(id), fields, version);
  }

  private static void insertCategory(PreparedStatement s, long id, String name, Long parent)
      throws SQLException {
    s.setLong(1, id);
    s.setString(2, name);
    s.setObject(3, parent, Types.BIGINT);
    s.addBatch();
  }

  /** A price event for a product (JSON of pricing.events), the product id as the key. */
  public byte[] price(long productId, long version) {
    // 5.00 to 504.99, never the price this loader sent the product last: a change that repeated
    // the price would change nothing in its document (and is rightly not written), which a round
    // of price changes waiting for every product would wait on forever. (Any formula of the
    // version alone repeats for some pair of versions: seen once in 15,000 products.)
    long cents = 500 + Math.floorMod(productId * 7_919 + version * 104_729, 50_000);
    if (Long.valueOf(cents).equals(lastCents.get(productId))) {
      cents = 500 + Math.floorMod(cents - 500 + 1, 50_000);
    }
    lastCents.put(productId, cents);
    BigDecimal price =
        BigDecimal.valueOf(cents).divide(BigDecimal.valueOf(100), 2, RoundingMode.UNNECESSARY);
    return String.format(
            "{\"product_id\":%d,\"price\":%s,\"currency\":\"EUR\",\"version\":%d}",
            productId, price.toPlainString(), version)
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * One realistic catalog change, chosen at random: a product renamed, a description edited, an
   * attribute changed, a product deleted, a brand renamed, a category moved.
   *
   * @return what it did, for the summary
   */
  public String change(Connection c, int products, int brands) throws SQLException {
    int kind = random.nextInt(100);
    long id = 1 + random.nextInt(products);
    try (Statement s = c.createStatement()) {
      if (kind < 40) {
        s.executeUpdate(
            "UPDATE product SET name = '"
                + productName()
                + "', updated_at = now() WHERE id = "
                + id);
        return "rename";
      } else if (kind < 60) {
        s.executeUpdate(
            "UPDATE product SET description = '"
                + description(descriptionChars)
                + "', updated_at = now() WHERE id = "
                + id);
        return "description edit";
      } else if (kind < 85) {
        s.executeUpdate(
            "UPDATE product SET attributes = jsonb_set(coalesce(attributes, '{}'), '{colour}', '\""
                + word()
                + "\"'), updated_at = now() WHERE id = "
                + id);
        return "attribute change";
      } else if (kind < 90) {
        s.executeUpdate("DELETE FROM product WHERE id = " + id);
        return "delete";
      } else if (kind < 96) {
        s.executeUpdate(
            "UPDATE brand SET name = 'Brand "
                + capitalized(word())
                + " "
                + random.nextInt(1000)
                + "' WHERE id = "
                + (1 + random.nextInt(brands)));
        return "brand rename";
      } else {
        // A third-level category moves under another second-level one.
        long leaf = leafCategory();
        long parent = (1 + random.nextInt(4)) * 10 + 1 + random.nextInt(3);
        s.executeUpdate("UPDATE category SET parent_id = " + parent + " WHERE id = " + leaf);
        return "category move";
      }
    }
  }

  private long leafCategory() {
    return ((1 + random.nextInt(4)) * 10 + 1 + random.nextInt(3)) * 10 + 1 + random.nextInt(3);
  }

  private String productName() {
    return capitalized(word())
        + " "
        + capitalized(word())
        + " "
        + NOUNS[random.nextInt(NOUNS.length)];
  }

  /** About {@code chars} characters of product copy. */
  String description(int chars) {
    StringBuilder text = new StringBuilder();
    while (text.length() < chars) {
      text.append(capitalized(word()));
      for (int i = 0; i < 8 + random.nextInt(10); i++) {
        // Product copy is full of model names and codes: it does not compress much.
        text.append(' ').append(random.nextBoolean() ? word() : code());
      }
      text.append(random.nextInt(10_000)).append(". ");
    }
    return text.toString();
  }

  private String code() {
    StringBuilder code = new StringBuilder();
    for (int i = 0; i < 4 + random.nextInt(6); i++) {
      code.append((char) ('a' + random.nextInt(26)));
    }
    return code.toString();
  }

  private String word() {
    return WORDS[random.nextInt(WORDS.length)];
  }

  private static String capitalized(String w) {
    return Character.toUpperCase(w.charAt(0)) + w.substring(1);
  }
}
