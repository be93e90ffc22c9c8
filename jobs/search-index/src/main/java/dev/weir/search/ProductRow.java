package dev.weir.search;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.common.types.Utf8StringTypeInfo;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.Json;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A product as the catalog's change events carry it. {@code stamp} orders versions of the row (the
 * change's LSN, 0 for a snapshot read). A null large column that the event marked as unavailable is
 * "unchanged" ({@link #descriptionUnavailable}, {@link #attributesUnavailable}).
 */
public class ProductRow {
  public long id;
  public String sku;
  public String name;

  // Several kB each: serialized as UTF-8 in one piece (records to the join, and the join's state).
  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String description;

  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String attributes; // JSON object text

  public Long brandId;
  public Long categoryId;
  public String updatedAt; // ISO-8601
  public long stamp;
  public boolean deleted;
  public boolean descriptionUnavailable;
  public boolean attributesUnavailable;

  public ProductRow() {}

  /** How deep the products index's flattened {@code attributes} field takes objects. */
  static final int ATTRIBUTES_DEPTH_LIMIT = 20;

  /** The row of a product change event; throws with a readable reason if it is not one. */
  public static ProductRow of(ChangeEvent e) {
    ProductRow row = new ProductRow();
    row.stamp = CatalogChanges.stamp(e);
    Map<String, Object> values = CatalogChanges.row(e);
    row.id = CatalogChanges.id(values, "id");
    if (e.isDelete()) {
      row.deleted = true;
      return row;
    }
    row.sku = CatalogChanges.text(values, "sku");
    row.name = CatalogChanges.text(values, "name");
    row.descriptionUnavailable = CatalogChanges.unavailable(values, "description");
    row.description =
        row.descriptionUnavailable ? null : CatalogChanges.text(values, "description");
    row.attributesUnavailable = CatalogChanges.unavailable(values, "attributes");
    row.attributes = row.attributesUnavailable ? null : CatalogChanges.json(values, "attributes");
    checkAttributes(row.attributes);
    row.brandId = CatalogChanges.optionalId(values, "brand_id");
    row.categoryId = CatalogChanges.optionalId(values, "category_id");
    row.updatedAt = CatalogChanges.timestamp(values, "updated_at");
    return row;
  }

  /**
   * What the products index takes as {@code attributes} (a flattened field): a JSON object nested
   * at most {@value #ATTRIBUTES_DEPTH_LIMIT} objects deep. Elasticsearch would refuse anything
   * else, so it is refused here, where it can go to the DLQ, and not at the index.
   */
  private static void checkAttributes(String json) {
    if (json == null) {
      return;
    }
    JsonNode attributes;
    try {
      attributes = Json.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("'attributes' is not JSON: " + e.getOriginalMessage());
    }
    if (!attributes.isObject()) {
      throw new IllegalArgumentException(
          "'attributes' is a JSON "
              + attributes.getNodeType().name().toLowerCase()
              + ", not an object");
    }
    int depth = objectDepth(attributes);
    if (depth > ATTRIBUTES_DEPTH_LIMIT) {
      throw new IllegalArgumentException(
          "'attributes' nests objects "
              + depth
              + " deep; the products index takes at most "
              + ATTRIBUTES_DEPTH_LIMIT);
    }
  }

  private static int objectDepth(JsonNode node) {
    int deepest = 0;
    for (JsonNode child : node) {
      deepest = Math.max(deepest, objectDepth(child));
    }
    return node.isObject() ? deepest + 1 : deepest;
  }
}
