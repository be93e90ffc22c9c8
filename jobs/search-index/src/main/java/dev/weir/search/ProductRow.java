package dev.weir.search;

import dev.weir.schema.ChangeEvent;
import java.util.Map;

/**
 * A product as the catalog's change events carry it. {@code stamp} orders versions of the row (the
 * change's LSN, 0 for a snapshot read). A null large column that the event marked as unavailable is
 * "unchanged" ({@link #descriptionUnavailable}, {@link #attributesUnavailable}).
 */
public class ProductRow {
  public long id;
  public String sku;
  public String name;
  public String description;
  public String attributes; // JSON object text
  public Long brandId;
  public Long categoryId;
  public String updatedAt; // ISO-8601
  public long stamp;
  public boolean deleted;
  public boolean descriptionUnavailable;
  public boolean attributesUnavailable;

  public ProductRow() {}

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
    row.brandId = CatalogChanges.optionalId(values, "brand_id");
    row.categoryId = CatalogChanges.optionalId(values, "category_id");
    row.updatedAt = CatalogChanges.timestamp(values, "updated_at");
    return row;
  }
}
