package dev.weir.search;

import dev.weir.common.types.Utf8StringTypeInfo;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A product's large values, kept by the join in a state of their own: a price or a rename rewrites
 * the product's small state, never these (in RocksDB, rewriting a value writes it again to the
 * memtable, the next SST files and the next incremental checkpoint).
 */
public class LargeValues {

  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String description;

  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String attributes; // JSON object text

  public LargeValues() {}

  static LargeValues of(ProductRow row) {
    LargeValues v = new LargeValues();
    v.description = row.description;
    v.attributes = row.attributes;
    return v;
  }

  boolean sameAs(ProductRow row) {
    return Objects.equals(description, row.description)
        && Objects.equals(attributes, row.attributes);
  }
}
