package dev.weir.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Loads the versioned JSON Schemas shipped on the class path ({@code
 * weir/schemas/json/<family>/v<N>.schema.json}) and validates documents against them.
 */
public final class SchemaCatalog {

  static final String ROOT = "weir/schemas/json/";

  private static final Map<EventSchema, Integer> CURRENT = new ConcurrentHashMap<>();

  /** The newest version of a family: the highest {@code v<N>} file present. */
  public static int currentVersion(EventSchema schema) {
    return CURRENT.computeIfAbsent(
        schema,
        s -> {
          int version = 0;
          while (resourceExists(path(s, version + 1))) {
            version++;
          }
          if (version == 0) {
            throw new IllegalStateException("no JSON Schema for " + s.family() + " under " + ROOT);
          }
          return version;
        });
  }

  static String path(EventSchema schema, int version) {
    return ROOT + schema.family() + "/v" + version + ".schema.json";
  }

  private static boolean resourceExists(String resource) {
    return SchemaCatalog.class.getClassLoader().getResource(resource) != null;
  }

  public static JsonSchema load(EventSchema schema) {
    return load(schema, currentVersion(schema));
  }

  public static JsonSchema load(EventSchema schema, int version) {
    return loadResource(path(schema, version));
  }

  /** Loads any JSON Schema resource with weir's validation settings (formats are asserted). */
  public static JsonSchema loadResource(String resource) {
    try (InputStream in = SchemaCatalog.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no JSON Schema on the class path at " + resource);
      }
      JsonNode node = Json.mapper().readTree(in);
      return factory().getSchema(node, config());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read JSON Schema " + resource, e);
    }
  }

  /** Readable violations, empty when the document is valid. */
  public static List<String> violations(JsonSchema schema, JsonNode document) {
    Set<ValidationMessage> messages = schema.validate(document);
    return messages.stream()
        .map(ValidationMessage::getMessage)
        .sorted()
        .collect(Collectors.toList());
  }

  private static JsonSchemaFactory factory() {
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
  }

  private static SchemaValidatorsConfig config() {
    // Draft 2020-12 treats "format" as an annotation unless told otherwise: a timestamp that is
    // not RFC 3339 must be rejected.
    return SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
  }

  private SchemaCatalog() {}
}
