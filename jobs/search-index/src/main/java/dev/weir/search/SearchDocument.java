package dev.weir.search;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One product's search document, as a row of {@code search_document} and an Elasticsearch document,
 * plus what changed since the last one written: the columns ({@link #changed}), the content hash,
 * and the version ({@link #docVersion}, monotonic: the external version in Elasticsearch and the
 * guard of every write to the copy).
 */
public class SearchDocument {

  /** The columns of search_document besides the key, the hash and the version. */
  public enum Column {
    SKU("sku"),
    NAME("name"),
    DESCRIPTION("description"),
    ATTRIBUTES("attributes"),
    BRAND_ID("brand_id"),
    BRAND_NAME("brand_name"),
    CATEGORY_ID("category_id"),
    CATEGORY_PATH("category_path"),
    PRICE("price"),
    CURRENCY("currency"),
    PRICE_VERSION("price_version"),
    UPDATED_AT("updated_at");

    public final String sql;

    Column(String sql) {
      this.sql = sql;
    }

    int bit() {
      return 1 << ordinal();
    }
  }

  public static final int ALL = (1 << Column.values().length) - 1;

  public long productId;
  public String sku;
  public String name;
  public String description;
  public String attributes;
  public Long brandId;
  public String brandName;
  public Long categoryId;
  public List<String> categoryPath;
  public BigDecimal price;
  public String currency;
  public Long priceVersion;
  public String updatedAt;

  public byte[] contentHash;
  public long docVersion;

  /** Columns whose value differs from the last document written ({@link #ALL} when new). */
  public int changed;

  /** Never written before (or written, deleted and created again): insert it whole. */
  public boolean isNew;

  public boolean deleted;

  public SearchDocument() {}

  public static SearchDocument deletion(long productId, long docVersion) {
    SearchDocument d = new SearchDocument();
    d.productId = productId;
    d.docVersion = docVersion;
    d.deleted = true;
    return d;
  }

  public Set<Column> changedColumns() {
    Set<Column> columns = EnumSet.noneOf(Column.class);
    for (Column c : Column.values()) {
      if ((changed & c.bit()) != 0) {
        columns.add(c);
      }
    }
    return columns;
  }

  /** The value of a column as text (what its hash is computed from). */
  String text(Column c) {
    Object v =
        switch (c) {
          case SKU -> sku;
          case NAME -> name;
          case DESCRIPTION -> description;
          case ATTRIBUTES -> attributes;
          case BRAND_ID -> brandId;
          case BRAND_NAME -> brandName;
          case CATEGORY_ID -> categoryId;
          case CATEGORY_PATH -> categoryPath == null ? null : String.join("\u0000", categoryPath);
          case PRICE -> price == null ? null : price.stripTrailingZeros().toPlainString();
          case CURRENCY -> currency;
          case PRICE_VERSION -> priceVersion;
          case UPDATED_AT -> updatedAt;
        };
    return v == null ? null : v.toString();
  }

  /** A 64-bit hash per column: enough to tell which columns changed, without keeping them. */
  long[] columnHashes() {
    MessageDigest sha = sha256();
    long[] hashes = new long[Column.values().length];
    for (Column c : Column.values()) {
      String v = text(c);
      hashes[c.ordinal()] = v == null ? 0 : 1 + sha256Prefix(sha, v);
    }
    return hashes;
  }

  /**
   * Whether changed columns change what a search sees: any but price_version (a new price version
   * with the same price changes nothing visible).
   */
  static boolean contentChanged(int changed) {
    return (changed & ~Column.PRICE_VERSION.bit()) != 0;
  }

  /** The hash of what a search sees: every column but price_version. */
  static byte[] contentHash(long[] columnHashes) {
    MessageDigest sha = sha256();
    for (Column c : Column.values()) {
      if (c != Column.PRICE_VERSION) {
        long h = columnHashes[c.ordinal()];
        for (int i = 0; i < 8; i++) {
          sha.update((byte) (h >>> (8 * i)));
        }
      }
    }
    byte[] full = sha.digest();
    byte[] hash = new byte[16];
    System.arraycopy(full, 0, hash, 0, 16);
    return hash;
  }

  /**
   * Sets the content hash from the current values, as the job does: for documents made outside the
   * job (benchmark data written straight to the copy).
   */
  public SearchDocument hashContent() {
    contentHash = contentHash(columnHashes());
    return this;
  }

  /**
   * The Elasticsearch document (the mapping in schemas/elasticsearch/products.mapping.json),
   * written straight to UTF-8 bytes: a tree of nodes and a String in between cost a quarter of the
   * join's CPU. {@code attributes} goes in as the JSON text it is, checked when it was read ({@link
   * ProductRow}).
   */
  public byte[] toJson() {
    ByteArrayBuilder bytes = new ByteArrayBuilder(estimatedJsonSize());
    try (JsonGenerator g = Json.mapper().getFactory().createGenerator(bytes)) {
      g.writeStartObject();
      g.writeNumberField("product_id", productId);
      g.writeStringField("sku", sku);
      g.writeStringField("name", name);
      g.writeStringField("description", description);
      if (attributes != null) {
        g.writeFieldName("attributes");
        g.writeRawValue(attributes);
      }
      writeNumberOrNull(g, "brand_id", brandId);
      g.writeStringField("brand_name", brandName);
      writeNumberOrNull(g, "category_id", categoryId);
      g.writeArrayFieldStart("category_path");
      if (categoryPath != null) {
        for (String category : categoryPath) {
          g.writeString(category);
        }
      }
      g.writeEndArray();
      g.writeNumberField("price", price); // null writes null
      g.writeStringField("currency", currency);
      g.writeStringField("updated_at", updatedAt);
      g.writeStringField(
          "content_hash", contentHash == null ? null : HexFormat.of().formatHex(contentHash));
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the document of product " + productId, e);
    }
    return bytes.toByteArray();
  }

  private int estimatedJsonSize() {
    return 512
        + (description == null ? 0 : description.length() + description.length() / 8)
        + (attributes == null ? 0 : attributes.length());
  }

  private static void writeNumberOrNull(JsonGenerator g, String field, Long value)
      throws IOException {
    if (value == null) {
      g.writeNullField(field);
    } else {
      g.writeNumberField(field, value);
    }
  }

  /** A later document of the same product folded into this one, for one batched write. */
  public static SearchDocument then(SearchDocument earlier, SearchDocument later) {
    if (later.docVersion < earlier.docVersion) {
      return earlier;
    }
    if (!later.deleted && !earlier.deleted) {
      later.changed |= earlier.changed;
      later.isNew |= earlier.isNew;
    }
    return later;
  }

  private static long sha256Prefix(MessageDigest sha, String v) {
    byte[] d = sha.digest(v.getBytes(StandardCharsets.UTF_8));
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (d[i] & 0xff);
    }
    return h;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    if (deleted) {
      return "delete " + productId + "@" + docVersion;
    }
    List<String> cols = new ArrayList<>();
    changedColumns().forEach(c -> cols.add(c.sql));
    return "product "
        + productId
        + "@"
        + docVersion
        + (isNew ? " new" : " changed " + cols)
        + " '"
        + Objects.toString(name)
        + "'";
  }
}
