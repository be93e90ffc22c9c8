package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.math.BigDecimal;

/** {@code pricing.events}: a price from the pricing service; the highest version wins. */
public record PricingEvent(
    @JsonProperty("product_id") long productId,
    @JsonProperty("price") BigDecimal price,
    @JsonProperty("currency") String currency,
    @JsonProperty("version") long version) {}
