package dev.weir.documents.definition;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.definition.NodeSpec.ConcatSpec;
import dev.weir.documents.transform.FieldTransform;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PGSync's {@code transform} of a node, read. PGSync merges every node's transforms into one tree
 * keyed by labels and applies it to the whole document, so a parent may also give a child's
 * transform, nested under the child's label ({@code "rename": {"authors": {"name": "author"}}});
 * and a child's own transform of a kind then replaces the parent's nested one, silently. Here each
 * nested transform is moved to the node it names ({@link #nest}), and a node given one both ways is
 * refused rather than one of them dropped. A replacement map on a scalar child's label ({@code
 * "replace": {"languages": {"-": "="}}}) becomes the child's replace of its one column.
 */
final class TransformSpecs {

  private TransformSpecs() {}

  private static final Set<String> CONCAT_KEYS = Set.of("columns", "destination", "delimiter");

  /**
   * Moves each transform a node nests under a child's label into that child, top down: {@code node}
   * (a copy of the file's) is changed in place.
   */
  static void nest(JsonNode node, String path) {
    if (!node.isObject()) {
      return;
    }
    Map<String, ObjectNode> children = new LinkedHashMap<>();
    for (JsonNode child : node.path("children")) {
      if (child.isObject()) {
        String label = child.path("label").asText(child.path("table").asText());
        children.put(label, (ObjectNode) child);
      }
    }
    if (node.get("transform") instanceof ObjectNode transform) {
      for (String kind : List.of("rename", "replace", "concat")) {
        if (transform.get(kind) instanceof ObjectNode spec) {
          nestKind(kind, spec, children, path);
        }
      }
    }
    for (Map.Entry<String, ObjectNode> child : children.entrySet()) {
      nest(child.getValue(), path + "." + child.getKey());
    }
  }

  private static void nestKind(
      String kind, ObjectNode spec, Map<String, ObjectNode> children, String path) {
    List<String> moved = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = spec.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      ObjectNode child = children.get(e.getKey());
      if (child == null || kind.equals("concat") && CONCAT_KEYS.contains(e.getKey())) {
        continue;
      }
      JsonNode given = e.getValue();
      boolean labelRename = kind.equals("rename") && given.isTextual();
      if (labelRename || kind.equals("concat") || given.isObject()) {
        if (subtreeHas(child, kind)) {
          throw DefinitionException.at(
              path,
              "transform."
                  + kind
                  + " names the child '"
                  + e.getKey()
                  + "', which has a "
                  + kind
                  + " of its own or below it: PGSync would apply only that one; give it in one"
                  + " place");
        }
      }
      if (labelRename) {
        continue; // the label itself is renamed: the planner does it
      }
      if (kind.equals("replace") && given.isObject() && FieldTransform.isReplacementMap(given)) {
        // Replaces in a scalar child's values: the child's replace of its one column.
        JsonNode columns = child.path("columns");
        if (!"scalar".equals(child.path("relationship").path("variant").asText())
            || columns.size() != 1) {
          throw DefinitionException.at(
              path,
              "transform.replace."
                  + e.getKey()
                  + " replaces text in the child's values: the child must be a scalar of one named"
                  + " column");
        }
        ObjectNode own = JsonNodeFactory.instance.objectNode();
        own.set(columns.get(0).asText(), given);
        transformOf(child).set(kind, own);
      } else if (given.isObject() || kind.equals("concat") && given.isArray()) {
        transformOf(child).set(kind, given);
      } else {
        continue;
      }
      moved.add(e.getKey());
    }
    moved.forEach(spec::remove);
  }

  private static ObjectNode transformOf(ObjectNode node) {
    return node.get("transform") instanceof ObjectNode t ? t : node.putObject("transform");
  }

  /** Whether the node or a node below it has a non-empty transform of the kind. */
  private static boolean subtreeHas(JsonNode node, String kind) {
    JsonNode own = node.path("transform").path(kind);
    if (own.isContainerNode() && !own.isEmpty()) {
      return true;
    }
    for (JsonNode child : node.path("children")) {
      if (subtreeHas(child, kind)) {
        return true;
      }
    }
    return false;
  }

  /** A node's transform, read; {@code where} names the node in errors. */
  static NodeSpec.Transforms read(JsonNode transform, String path) {
    if (transform == null) {
      return NodeSpec.Transforms.NONE;
    }
    Map<String, String> rename = new LinkedHashMap<>();
    Map<String, JsonNode> renameWithin = new LinkedHashMap<>();
    object(transform, "rename", path)
        .fields()
        .forEachRemaining(
            e -> {
              if (e.getValue().isTextual()) {
                DefinitionFile.checkName(
                    e.getValue().asText(), "node '" + path + "': transform.rename." + e.getKey());
                rename.put(e.getKey(), e.getValue().asText());
              } else if (e.getValue().isObject()) {
                renameWithin.put(e.getKey(), e.getValue());
              } else {
                throw DefinitionException.at(
                    path,
                    "transform.rename."
                        + e.getKey()
                        + " must be a field name (or, inside a json column, an object)");
              }
            });
    Map<String, JsonNode> replace = new LinkedHashMap<>();
    object(transform, "replace", path)
        .fields()
        .forEachRemaining(
            e -> {
              if (!e.getValue().isObject()) {
                throw DefinitionException.at(
                    path,
                    "transform.replace."
                        + e.getKey()
                        + " must be an object of texts to replace, {\"-\": \"_\"}");
              }
              replace.put(e.getKey(), e.getValue());
            });
    Map<String, JsonNode> mapping = new LinkedHashMap<>();
    object(transform, "mapping", path)
        .fields()
        .forEachRemaining(
            e -> {
              if (!e.getValue().isObject()) {
                throw DefinitionException.at(
                    path, "transform.mapping." + e.getKey() + " must be a mapping object");
              }
              mapping.put(e.getKey(), e.getValue());
            });
    return new NodeSpec.Transforms(
        rename,
        renameWithin,
        replace,
        concat(transform.get("concat"), path),
        mapping,
        transform.get("move"));
  }

  /** One concat (an object) or several (a list of them). */
  private static List<ConcatSpec> concat(JsonNode given, String path) {
    List<ConcatSpec> concat = new ArrayList<>();
    if (given == null || given.isNull()) {
      return concat;
    }
    ArrayNode all = given.isArray() ? (ArrayNode) given : JsonNodeFactory.instance.arrayNode();
    if (given.isObject()) {
      if (given.isEmpty()) {
        return concat;
      }
      all.add(given);
    }
    if (!given.isArray() && !given.isObject()) {
      throw DefinitionException.at(path, "transform.concat must be an object or a list of them");
    }
    for (JsonNode one : all) {
      DefinitionFile.checkKeys(one, CONCAT_KEYS, "node '" + path + "': transform.concat");
      List<String> columns = new ArrayList<>();
      JsonNode listed = one.path("columns");
      if (!listed.isArray() || listed.isEmpty()) {
        throw DefinitionException.at(path, "transform.concat needs 'columns', a list of names");
      }
      for (JsonNode c : listed) {
        if (!c.isTextual()) {
          throw DefinitionException.at(
              path, "transform.concat's columns are names or texts, not " + c);
        }
        columns.add(c.asText());
      }
      JsonNode destination = one.path("destination");
      if (!destination.isTextual()) {
        throw DefinitionException.at(path, "transform.concat needs a 'destination' field name");
      }
      DefinitionFile.checkName(
          destination.asText(), "node '" + path + "': transform.concat.destination");
      JsonNode delimiter = one.path("delimiter");
      if (!delimiter.isMissingNode() && !delimiter.isTextual()) {
        throw DefinitionException.at(path, "transform.concat.delimiter must be a text");
      }
      concat.add(new ConcatSpec(List.copyOf(columns), delimiter.asText(""), destination.asText()));
    }
    return concat;
  }

  private static JsonNode object(JsonNode n, String key, String path) {
    JsonNode v = n.path(key);
    if (!v.isMissingNode() && !v.isNull() && !v.isObject()) {
      throw DefinitionException.at(path, "transform." + key + " must be an object");
    }
    return v.isNull() ? JsonNodeFactory.instance.missingNode() : v;
  }
}
