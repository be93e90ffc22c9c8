package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * {@code cdc.catalog.*}: a Debezium change event (the envelope's payload). The codec accepts the
 * bare envelope and the {@code {schema, payload}} form alike; a tombstone (null value) is not a
 * change event and never reaches this type.
 *
 * <p>A column whose value is {@link #UNAVAILABLE_VALUE} was not sent by PostgreSQL (an unchanged
 * TOASTed value): it means "unchanged", never "set to this string".
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ChangeEvent(
    @JsonProperty("before") Map<String, Object> before,
    @JsonProperty("after") Map<String, Object> after,
    @JsonProperty("source") Map<String, Object> source,
    @JsonProperty("op") String op,
    @JsonProperty("ts_ms") Long tsMs,
    @JsonProperty("transaction") Map<String, Object> transaction) {

  public static final String UNAVAILABLE_VALUE = "__debezium_unavailable_value";

  @JsonIgnore
  public boolean isDelete() {
    return "d".equals(op);
  }

  /** The source table's name, e.g. {@code product}, or null if the event does not say. */
  @JsonIgnore
  public String table() {
    return source == null ? null : (String) source.get("table");
  }
}
