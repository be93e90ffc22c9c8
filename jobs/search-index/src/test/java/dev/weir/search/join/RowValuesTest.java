package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowValuesTest {

  private static ObjectNode row() {
    ObjectNode row = Json.mapper().createObjectNode();
    row.put("id", 42);
    row.put("sku", "SKU-\"42\"\\\n\t é ✓ 😀");
    row.put("price", new BigDecimal("19.9"));
    row.put("ratio", 0.25d);
    row.put("active", true);
    row.putNull("deleted_at");
    row.putObject("attributes").put("colour", "green").putArray("sizes").add(1).add("L");
    row.putArray("tags").add("a").addObject().put("b", "{[\"]}");
    // Larger than what Jackson reads from a String at once: read through a buffered reader.
    row.put("description", "x".repeat(70_000) + "\"" + "y".repeat(10));
    row.put("empty", "");
    return row;
  }

  @Test
  void eachFieldIsTheTextJacksonWritesForItsValue() throws Exception {
    ObjectNode row = row();
    RowValues values = RowValues.of(row.toString());

    assertThat(values.size()).isEqualTo(row.size());
    for (Iterator<Map.Entry<String, JsonNode>> it = row.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      assertThat(values.json(field.getKey()))
          .as(field.getKey())
          .isEqualTo(field.getValue().toString());
    }
    assertThat(values.json("no_such_column")).isEqualTo("null");
    assertThat(values.has("deleted_at")).isTrue();
    assertThat(values.has("no_such_column")).isFalse();
  }

  @Test
  void aValueEndsBeforeTheWhitespaceAndCommaAfterIt() throws Exception {
    ObjectNode row = row();
    String pretty = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(row);
    RowValues values = RowValues.of(pretty.replace(",\n", " \t,\r\n "));

    assertThat(values.size()).isEqualTo(row.size());
    for (Iterator<Map.Entry<String, JsonNode>> it = row.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String json = values.json(field.getKey());
      if (field.getValue().isContainerNode()) {
        // A container keeps the whitespace inside it; it reads back the same.
        assertThat(Json.mapper().readTree(json))
            .as(field.getKey())
            .isEqualTo(Json.mapper().readTree(field.getValue().toString()));
      } else {
        assertThat(json).as(field.getKey()).isEqualTo(field.getValue().toString());
      }
    }
  }

  @Test
  void keysAreThoseOfTheParsedValues() {
    ObjectNode row = row();
    RowValues values = RowValues.of(row.toString());

    for (List<String> columns :
        List.of(
            List.of("id"),
            List.of("sku"),
            List.of("price"),
            List.of("id", "sku"),
            List.of("attributes"),
            List.of("deleted_at"),
            List.of("id", "deleted_at"),
            List.of("no_such_column"))) {
      List<JsonNode> parts = new ArrayList<>();
      columns.forEach(c -> parts.add(row.get(c)));
      assertThat(values.key(columns)).as(columns.toString()).isEqualTo(Values.key(parts));
    }
    assertThat(values.key(List.of("id"))).isEqualTo("42");
    assertThat(values.key(List.of("deleted_at"))).isNull();
  }

  @Test
  void aProjectionIsTheObjectOfThoseColumns() throws Exception {
    ObjectNode row = row();
    String projected = RowValues.of(row.toString()).project(List.of("sku", "attributes", "gone"));

    ObjectNode expected = Json.mapper().createObjectNode();
    expected.set("sku", row.get("sku"));
    expected.set("attributes", row.get("attributes"));
    assertThat(Json.mapper().readTree(projected)).isEqualTo(expected);
  }
}
