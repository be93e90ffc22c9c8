package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/**
 * The backward-compatibility rule (old samples must pass the new schema, see SchemaSamplesTest)
 * catches breaking changes: shown here on fixture versions of activity.events.
 */
class SchemaEvolutionTest {

  private final JsonNode v1Sample = read("weir/schemas/samples/activity.events/v1/no-details.json");

  @Test
  void addingAnOptionalFieldKeepsOldSamplesValid() {
    var compatible = SchemaCatalog.loadResource("fixtures/evolution/compatible-v2.schema.json");
    assertThat(SchemaCatalog.violations(compatible, v1Sample)).isEmpty();
  }

  @Test
  void makingANewFieldRequiredBreaksOldSamples() {
    var breaking = SchemaCatalog.loadResource("fixtures/evolution/breaking-v2.schema.json");
    assertThat(SchemaCatalog.violations(breaking, v1Sample))
        .anyMatch(m -> m.contains("tenant_region"));
  }

  @Test
  void theCurrentVersionIsTheHighestFilePresent() {
    for (EventSchema schema : EventSchema.values()) {
      int current = SchemaCatalog.currentVersion(schema);
      assertThat(getClass().getClassLoader().getResource(SchemaCatalog.path(schema, current)))
          .isNotNull();
      assertThat(getClass().getClassLoader().getResource(SchemaCatalog.path(schema, current + 1)))
          .isNull();
    }
  }

  private static JsonNode read(String resource) {
    try {
      return Json.mapper()
          .readTree(SchemaEvolutionTest.class.getClassLoader().getResource(resource));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
