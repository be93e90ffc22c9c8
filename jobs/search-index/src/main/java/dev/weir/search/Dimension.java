package dev.weir.search;

import dev.weir.schema.ChangeEvent;
import java.util.Map;

/**
 * A brand or a category, as every parallel instance of the join holds them (broadcast). A deleted
 * one stays as a tombstone: its stamp still counts in the version of documents that name it.
 */
public class Dimension {

  public enum Kind {
    BRAND,
    CATEGORY
  }

  public Kind kind;
  public long id;
  public String name;
  public Long parentId; // categories only
  public long stamp;
  public boolean deleted;

  public Dimension() {}

  public static Dimension of(Kind kind, ChangeEvent e) {
    Dimension d = new Dimension();
    d.kind = kind;
    d.stamp = CatalogChanges.stamp(e);
    Map<String, Object> values = CatalogChanges.row(e);
    d.id = CatalogChanges.id(values, "id");
    if (e.isDelete()) {
      d.deleted = true;
      return d;
    }
    d.name = CatalogChanges.text(values, "name");
    if (kind == Kind.CATEGORY) {
      d.parentId = CatalogChanges.optionalId(values, "parent_id");
    }
    return d;
  }

  @Override
  public String toString() {
    return kind + " " + id + (deleted ? " (deleted)" : " '" + name + "'") + " @" + stamp;
  }
}
