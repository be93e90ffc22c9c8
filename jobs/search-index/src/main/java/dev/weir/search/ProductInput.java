package dev.weir.search;

import dev.weir.schema.PricingEvent;

/** What arrives per product: a catalog row or a price (exactly one is set). */
public class ProductInput {
  public ProductRow product;
  public PricingEvent price;

  public ProductInput() {}

  public static ProductInput of(ProductRow row) {
    ProductInput in = new ProductInput();
    in.product = row;
    return in;
  }

  public static ProductInput of(PricingEvent price) {
    ProductInput in = new ProductInput();
    in.price = price;
    return in;
  }

  public long productId() {
    return product != null ? product.id : price.productId();
  }
}
