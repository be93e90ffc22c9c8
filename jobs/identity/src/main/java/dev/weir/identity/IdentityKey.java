package dev.weir.identity;

/** The identity table's key: a distinct id within a project. */
public record IdentityKey(String projectId, String distinctId) {}
