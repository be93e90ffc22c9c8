package dev.weir.identity;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The identity table's key: a distinct id within a project. */
public record IdentityKey(String projectId, String distinctId) {

  /** Distinct ids by project: a batched lookup is one query per project. */
  static Map<String, List<String>> byProject(Collection<IdentityKey> keys) {
    Map<String, List<String>> byProject = new LinkedHashMap<>();
    for (IdentityKey k : keys) {
      byProject.computeIfAbsent(k.projectId(), p -> new ArrayList<>()).add(k.distinctId());
    }
    return byProject;
  }
}
