package dev.weir.identity;

import dev.weir.schema.IdentityEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * identify, alias and merge, as functions of what the table holds: they return the records to write
 * (with only the columns they changed marked) or a reason to reject the event.
 */
public final class IdentityRules {

  /** What the rules read: one project's rows. */
  public interface Lookup {
    /** The row of a distinct id, or {@link IdentityRecord#unseen} if there is none. */
    IdentityRecord get(String distinctId) throws Exception;

    /** Up to {@code limit} stored rows whose canonical id is {@code canonicalId}. */
    List<IdentityRecord> byCanonical(String canonicalId, int limit) throws Exception;
  }

  /** Either a rejection (for the DLQ) or the changed records (possibly none: a repeat). */
  public record Outcome(String rejection, List<IdentityRecord> changed) {
    static Outcome rejected(String reason) {
      return new Outcome(reason, List.of());
    }

    public boolean isRejected() {
      return rejection != null;
    }
  }

  private final int mergeCap;

  public IdentityRules(int mergeCap) {
    this.mergeCap = mergeCap;
  }

  public Outcome apply(IdentityEvent event, Lookup lookup) throws Exception {
    return switch (event.type()) {
      case IDENTIFY -> identify(event, lookup);
      case ALIAS -> alias(event, lookup);
      case MERGE -> merge(event, lookup);
    };
  }

  /**
   * identify(D, U): D now maps to U, identify_seen set. D's anonymous cluster (every id mapping to
   * D's canonical id, e.g. its aliases) moves with it. If the cluster is already identified as
   * another user, the event is rejected.
   */
  private Outcome identify(IdentityEvent e, Lookup lookup) throws Exception {
    String user = e.targetId();
    IdentityRecord d = lookup.get(e.distinctId());
    if (d.canonicalId().equals(user)) {
      // Its whole cluster maps to the user already (e.g. a replay): nothing moves, however large.
      d.setIdentifySeen(true);
      return changed(List.of(d), e);
    }
    Map<String, IdentityRecord> cluster = cluster(d, lookup);
    if (cluster.size() > mergeCap) {
      return Outcome.rejected(tooLarge("identify", cluster.size()));
    }
    for (IdentityRecord member : cluster.values()) {
      if (member.identifySeen() && !member.canonicalId().equals(user)) {
        return Outcome.rejected(
            "distinct_id '"
                + e.distinctId()
                + "' is already identified as '"
                + member.canonicalId()
                + "'; identify as '"
                + user
                + "' rejected");
      }
    }
    for (IdentityRecord member : cluster.values()) {
      member.setCanonicalId(user);
    }
    d.setIdentifySeen(true);
    return changed(cluster.values(), e);
  }

  /**
   * alias(A, D): A maps to D's canonical id, alias_seen set; an A already mapped to another id is
   * rejected.
   */
  private Outcome alias(IdentityEvent e, Lookup lookup) throws Exception {
    IdentityRecord a = lookup.get(e.distinctId());
    String target = lookup.get(e.targetId()).canonicalId();
    if (!a.canonicalId().equals(a.distinctId()) && !a.canonicalId().equals(target)) {
      return Outcome.rejected(
          "alias '"
              + e.distinctId()
              + "' already maps to '"
              + a.canonicalId()
              + "'; alias to '"
              + e.targetId()
              + "' ("
              + target
              + ") rejected");
    }
    a.setCanonicalId(target);
    a.setAliasSeen(true);
    return changed(List.of(a), e);
  }

  /**
   * merge(D1, D2): every distinct id that maps to D1's canonical id now maps to D2's; a cluster
   * larger than the cap is rejected.
   */
  private Outcome merge(IdentityEvent e, Lookup lookup) throws Exception {
    IdentityRecord d1 = lookup.get(e.distinctId());
    String into = lookup.get(e.targetId()).canonicalId();
    if (d1.canonicalId().equals(into)) {
      return new Outcome(null, List.of()); // already merged
    }
    Map<String, IdentityRecord> cluster = cluster(d1, lookup);
    if (cluster.size() > mergeCap) {
      return Outcome.rejected(tooLarge("merge", cluster.size()));
    }
    for (IdentityRecord member : cluster.values()) {
      member.setCanonicalId(into);
    }
    return changed(cluster.values(), e);
  }

  /** Every id mapping to {@code d}'s canonical id, {@code d} and the canonical id included. */
  private Map<String, IdentityRecord> cluster(IdentityRecord d, Lookup lookup) throws Exception {
    Map<String, IdentityRecord> cluster = new LinkedHashMap<>();
    cluster.put(d.distinctId(), d);
    IdentityRecord canonical = lookup.get(d.canonicalId());
    if (canonical.canonicalId().equals(d.canonicalId())) {
      cluster.putIfAbsent(canonical.distinctId(), canonical); // the canonical id maps to itself
    }
    for (IdentityRecord member : lookup.byCanonical(d.canonicalId(), mergeCap + 1)) {
      cluster.putIfAbsent(member.distinctId(), lookup.get(member.distinctId()));
    }
    return cluster;
  }

  private String tooLarge(String what, int size) {
    return what
        + " would move "
        + (size > mergeCap ? "more than " + mergeCap : size)
        + " distinct ids (cap identity.merge-cap = "
        + mergeCap
        + ")";
  }

  private static Outcome changed(Iterable<IdentityRecord> records, IdentityEvent e) {
    List<IdentityRecord> changed = new ArrayList<>();
    for (IdentityRecord r : records) {
      r.touchIfChanged(e.time().toEpochMilli());
      if (r.isChanged()) {
        changed.add(r);
      }
    }
    return new Outcome(null, changed);
  }
}
