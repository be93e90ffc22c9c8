package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code declared.rows}: a row of a topic that feeds a node of a declared document. Its fields are
 * whatever the definition declares, so they are kept as read.
 */
public final class DeclaredRow {

  private final Map<String, Object> fields = new LinkedHashMap<>();

  @JsonAnySetter
  public void set(String field, Object value) {
    fields.put(field, value);
  }

  @JsonAnyGetter
  public Map<String, Object> fields() {
    return fields;
  }
}
