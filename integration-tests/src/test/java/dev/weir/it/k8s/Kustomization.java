package dev.weir.it.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders a Kustomize directory the way {@code kustomize build} does, for the subset of Kustomize
 * that k8s/ uses (no kustomize binary can be installed here): {@code resources} (files and
 * directories), {@code namespace}, and {@code patches} applied as JSON merge patches, which is how
 * Kustomize patches custom resources such as FlinkDeployment (it has no strategic-merge schema for
 * them), selected by the patch's kind and name or by a {@code target} (kind, name, equality-based
 * labelSelector). Any other field fails the rendering, so k8s/ cannot drift beyond what is checked.
 */
final class Kustomization {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static final Set<String> SUPPORTED =
      Set.of("apiVersion", "kind", "namespace", "resources", "patches");

  private Kustomization() {}

  static List<ObjectNode> render(Path dir) throws IOException {
    JsonNode k = YAML.readTree(dir.resolve("kustomization.yaml").toFile());
    k.fieldNames()
        .forEachRemaining(
            f -> {
              if (!SUPPORTED.contains(f)) {
                throw new IllegalStateException(
                    dir + "/kustomization.yaml uses '" + f + "', which this rendering does not do");
              }
            });
    List<ObjectNode> resources = new ArrayList<>();
    for (JsonNode r : k.path("resources")) {
      Path p = dir.resolve(r.asText()).normalize();
      resources.addAll(Files.isDirectory(p) ? render(p) : documents(p));
    }
    for (JsonNode patch : k.path("patches")) {
      JsonNode target = patch.get("target");
      for (ObjectNode doc : documents(dir.resolve(patch.path("path").asText()))) {
        List<ObjectNode> matched =
            resources.stream()
                .filter(r -> target == null ? sameKindAndName(r, doc) : matches(r, target))
                .toList();
        if (matched.isEmpty()) {
          throw new IllegalStateException(
              dir + ": patch " + patch + " (" + name(doc) + ") matches no resource");
        }
        matched.forEach(r -> mergePatch(r, doc, true));
      }
    }
    if (k.hasNonNull("namespace")) {
      resources.forEach(
          r -> ((ObjectNode) r.get("metadata")).put("namespace", k.get("namespace").asText()));
    }
    return resources;
  }

  static List<ObjectNode> documents(Path file) throws IOException {
    List<ObjectNode> docs = new ArrayList<>();
    try (var parser = YAML.getFactory().createParser(file.toFile())) {
      Iterator<ObjectNode> it = YAML.readValues(parser, ObjectNode.class);
      while (it.hasNext()) {
        docs.add(it.next());
      }
    }
    return docs;
  }

  static String name(JsonNode resource) {
    return resource.path("kind").asText() + "/" + resource.path("metadata").path("name").asText();
  }

  private static boolean sameKindAndName(JsonNode resource, JsonNode patch) {
    return name(resource).equals(name(patch));
  }

  private static boolean matches(JsonNode resource, JsonNode target) {
    if (target.has("kind") && !target.get("kind").asText().equals(resource.path("kind").asText())) {
      return false;
    }
    if (target.has("name")
        && !target.get("name").asText().equals(resource.path("metadata").path("name").asText())) {
      return false;
    }
    if (target.has("labelSelector")) {
      JsonNode labels = resource.path("metadata").path("labels");
      for (String term : target.get("labelSelector").asText().split(",")) {
        boolean negated = term.contains("!=");
        String[] kv = term.split("!=|==|=", 2);
        if (kv.length != 2) {
          throw new IllegalStateException("only key=value / key!=value selectors: " + term);
        }
        boolean equal = kv[1].trim().equals(labels.path(kv[0].trim()).asText(null));
        if (equal == negated) {
          return false;
        }
      }
    }
    return true;
  }

  /** RFC 7386: objects merge, anything else (lists too) replaces, null removes. */
  private static void mergePatch(ObjectNode target, JsonNode patch, boolean top) {
    for (Map.Entry<String, JsonNode> field :
        (Iterable<Map.Entry<String, JsonNode>>) patch::fields) {
      String key = field.getKey();
      JsonNode value = field.getValue();
      if (top && key.equals("metadata")) {
        continue; // it names the resource; labels and annotations are not patched here
      }
      if (value.isNull()) {
        target.remove(key);
      } else if (value.isObject() && target.get(key) instanceof ObjectNode existing) {
        mergePatch(existing, value, false);
      } else {
        target.set(key, value.deepCopy());
      }
    }
  }
}
