package dev.weir.connector.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * The engine a cluster runs, and the one place where what weir sends differs between them. The REST
 * calls weir makes are the same on Elasticsearch 8 and 9 and OpenSearch 2 (plain JSON, no
 * compatibility headers); what differs is the engine's own: OpenSearch has {@code flat_object}
 * where Elasticsearch has {@code flattened}, and no {@code _shard_doc} to sort a point in time on
 * (so a whole-index scan is a scroll there, see {@link SearchCluster#scan}).
 *
 * @param distribution Elasticsearch or OpenSearch
 * @param version the version the cluster reports ("8.19.21"), or only the major one when named
 */
public record Engine(Distribution distribution, String version) implements Serializable {

  /** Whose engine. */
  public enum Distribution {
    ELASTICSEARCH("Elasticsearch", 8),
    OPENSEARCH("OpenSearch", 2);

    private final String product;
    private final int oldestMajor;

    Distribution(String product, int oldestMajor) {
      this.product = product;
      this.oldestMajor = oldestMajor;
    }

    /** "Elasticsearch", "OpenSearch". */
    public String product() {
      return product;
    }
  }

  /** What {@link #named} takes, as the option's description lists them. */
  public static final String NAMES = "elasticsearch8, elasticsearch9, opensearch2";

  /**
   * The engine an option names: {@code elasticsearch8}, {@code elasticsearch9}, {@code opensearch2}
   * (any major version after the product's name).
   */
  public static Engine named(String name) {
    String key = name.trim().toLowerCase(Locale.ROOT);
    for (Distribution d : Distribution.values()) {
      String prefix = d.name().toLowerCase(Locale.ROOT);
      if (key.startsWith(prefix) && key.length() > prefix.length()) {
        String major = key.substring(prefix.length());
        if (major.chars().allMatch(Character::isDigit)) {
          return new Engine(d, major).supported();
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown search engine '" + name + "': one of " + NAMES + " (or leave it out to ask)");
  }

  /** The major version. */
  public int major() {
    int dot = version.indexOf('.');
    return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
  }

  public boolean isOpenSearch() {
    return distribution == Distribution.OPENSEARCH;
  }

  /** The name {@link #named} takes for it: "elasticsearch8", "opensearch2". */
  public String key() {
    return distribution.name().toLowerCase(Locale.ROOT) + major();
  }

  /** This engine, if weir can work with it; else why not. */
  Engine supported() {
    if (major() < distribution.oldestMajor) {
      throw new IllegalStateException(
          this
              + " is older than weir supports: "
              + distribution.product
              + " "
              + distribution.oldestMajor
              + " or newer (tested: "
              + NAMES
              + ")");
    }
    return this;
  }

  /**
   * A create-index body (settings and mappings) as weir writes it, for Elasticsearch, in this
   * engine's terms: on OpenSearch every {@code flattened} field becomes a {@code flat_object},
   * which takes no parameters (no {@code depth_limit}, no {@code ignore_above}).
   */
  public JsonNode indexBody(JsonNode body) {
    if (!isOpenSearch()) {
      return body;
    }
    JsonNode copy = body.deepCopy();
    JsonNode mappings = copy.path("mappings");
    toFlatObjects(mappings);
    for (JsonNode template : mappings.path("dynamic_templates")) {
      template.forEach(t -> toFlatObjects(t.path("mapping")));
    }
    return copy;
  }

  /** The field type weir maps a JSON column to on this engine. */
  public String flattenedType() {
    return isOpenSearch() ? "flat_object" : "flattened";
  }

  /** Whether a field mapping's type is this or the other engine's flattened object. */
  public static boolean isFlattened(JsonNode mapping) {
    String type = mapping.path("type").asText();
    return type.equals("flattened") || type.equals("flat_object");
  }

  private static void toFlatObjects(JsonNode mapping) {
    if (!(mapping instanceof ObjectNode object)) {
      return;
    }
    if ("flattened".equals(object.path("type").asText())) {
      object.removeAll();
      object.put("type", "flat_object");
      return;
    }
    for (String nested : new String[] {"properties", "fields"}) {
      if (object.get(nested) instanceof ObjectNode fields) {
        for (Iterator<Map.Entry<String, JsonNode>> f = fields.fields(); f.hasNext(); ) {
          toFlatObjects(f.next().getValue());
        }
      }
    }
  }

  @Override
  public String toString() {
    return distribution.product + " " + version;
  }
}
