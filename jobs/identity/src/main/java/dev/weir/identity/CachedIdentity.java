package dev.weir.identity;

/** What the enricher keeps per distinct id (a Flink POJO, so the state can evolve). */
public class CachedIdentity {
  public String canonicalId;

  /** The earliest event time written for this distinct id, or null. */
  public Long earliestSeen;

  /** Whether the store has a row for it. */
  public boolean stored;

  /**
   * The processing time this mapping was last written to state at, from which its TTL counts (0:
   * unknown, as in state written before this field: the next hit refreshes it).
   */
  public long refreshedAt;

  public CachedIdentity() {}

  CachedIdentity(String canonicalId, Long earliestSeen, boolean stored) {
    this.canonicalId = canonicalId;
    this.earliestSeen = earliestSeen;
    this.stored = stored;
  }

  static CachedIdentity of(IdentityKey key, IdentityRecord row) {
    return row == null
        ? new CachedIdentity(key.distinctId(), null, false)
        : new CachedIdentity(row.canonicalId(), row.earliestSeen(), true);
  }
}
