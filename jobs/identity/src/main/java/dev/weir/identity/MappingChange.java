package dev.weir.identity;

/** A distinct id's canonical id changed (sent to the enricher that caches it). */
public record MappingChange(String projectId, String distinctId, String canonicalId) {

  public IdentityKey key() {
    return new IdentityKey(projectId, distinctId);
  }
}
