package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.io.InputStream;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A field added to a Java type but not to its schema (or the other way round) fails here. */
class JavaTypesMatchSchemasTest {

  @ParameterizedTest
  @EnumSource(EventSchema.class)
  void javaPropertiesAreExactlyTheSchemaProperties(EventSchema schema) throws Exception {
    JsonNode root;
    try (InputStream in =
        getClass()
            .getClassLoader()
            .getResourceAsStream(
                SchemaCatalog.path(schema, SchemaCatalog.currentVersion(schema)))) {
      root = Json.mapper().readTree(in);
    }
    JsonNode objectSchema = schema == EventSchema.CDC_CATALOG ? root.at("/$defs/envelope") : root;
    Set<String> schemaProperties = new TreeSet<>();
    objectSchema.get("properties").fieldNames().forEachRemaining(schemaProperties::add);

    BeanDescription description =
        Json.mapper()
            .getSerializationConfig()
            .introspect(Json.mapper().constructType(schema.javaType()));
    Set<String> javaProperties =
        description.findProperties().stream()
            .map(BeanPropertyDefinition::getName)
            .collect(Collectors.toCollection(TreeSet::new));

    assertThat(javaProperties).as(schema.javaType().getSimpleName()).isEqualTo(schemaProperties);
  }

  @ParameterizedTest
  @EnumSource(EventSchema.class)
  void requiredPropertiesExistInTheJavaType(EventSchema schema) throws Exception {
    JsonNode root =
        Json.mapper()
            .readTree(
                getClass()
                    .getClassLoader()
                    .getResource(SchemaCatalog.path(schema, SchemaCatalog.currentVersion(schema))));
    JsonNode objectSchema = schema == EventSchema.CDC_CATALOG ? root.at("/$defs/envelope") : root;
    Set<String> javaProperties =
        Json.mapper()
            .getSerializationConfig()
            .introspect(Json.mapper().constructType(schema.javaType()))
            .findProperties()
            .stream()
            .map(BeanPropertyDefinition::getName)
            .collect(Collectors.toSet());
    objectSchema.get("required").forEach(r -> assertThat(javaProperties).contains(r.asText()));
  }
}
