package dev.weir.search;

import java.math.BigDecimal;

/**
 * What the join keeps per product: the catalog row (without its description and attributes, kept
 * apart in {@link DocumentJoiner#LARGE_VALUES}), the winning price, and the column hashes of the
 * last document written (null: none written, or deleted since).
 */
public class ProductState {
  public ProductRow product; // null until the catalog row arrives
  public BigDecimal price;
  public String currency;
  public long priceVersion = -1;
  public long[] writtenHashes;

  public ProductState() {}
}
