package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.identity.IdentityRecord.Column;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.IdentityEvent.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/** The rules as pure functions of the rows they read (given here as plain data). */
class IdentityRulesTest {

  private static final Instant AT = Instant.parse("2026-11-21T10:00:00Z");
  private final IdentityRules rules = new IdentityRules(3);
  private final Map<String, IdentityRecord> table = new HashMap<>();

  @Test
  void identifyMapsTheIdToTheUserAndNamesOnlyTheColumnsItChanged() throws Exception {
    row("d1", "d1", false);
    IdentityRules.Outcome outcome = apply(Type.IDENTIFY, "d1", "user-1");
    assertThat(outcome.isRejected()).isFalse();
    assertThat(outcome.changed())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.canonicalId()).isEqualTo("user-1");
              assertThat(r.changedColumns())
                  .containsExactly(Column.CANONICAL_ID, Column.IDENTIFY_SEEN, Column.UPDATED_AT);
            });
  }

  @Test
  void identifyingAgainAsTheSameUserChangesNothing() throws Exception {
    row("d1", "user-1", true);
    assertThat(apply(Type.IDENTIFY, "d1", "user-1").changed()).isEmpty();
  }

  @Test
  void identifyingAsAnotherUserIsRejectedWithTheReason() throws Exception {
    row("d1", "user-1", true);
    IdentityRules.Outcome outcome = apply(Type.IDENTIFY, "d1", "user-2");
    assertThat(outcome.rejection())
        .isEqualTo(
            "distinct_id 'd1' is already identified as 'user-1'; identify as 'user-2' rejected");
    assertThat(outcome.changed()).isEmpty();
  }

  @Test
  void identifyMovesTheAnonymousClusterAlong() throws Exception {
    row("d1", "d1", false);
    row("a1", "d1", false); // an alias of d1
    IdentityRules.Outcome outcome = apply(Type.IDENTIFY, "d1", "user-1");
    assertThat(outcome.changed())
        .extracting(IdentityRecord::distinctId, IdentityRecord::canonicalId)
        .containsExactlyInAnyOrder(Tuple.tuple("d1", "user-1"), Tuple.tuple("a1", "user-1"));
    assertThat(outcome.changed())
        .filteredOn(r -> r.distinctId().equals("a1"))
        .singleElement()
        .satisfies(r -> assertThat(r.isChanged(Column.IDENTIFY_SEEN)).isFalse());
  }

  @Test
  void anUnseenIdMapsToItselfAndAliasTakesTheTargetsCanonicalId() throws Exception {
    row("d1", "user-1", true);
    IdentityRules.Outcome outcome = apply(Type.ALIAS, "new-alias", "d1");
    assertThat(outcome.changed())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.isStored()).isFalse();
              assertThat(r.canonicalId()).isEqualTo("user-1");
              assertThat(r.changedColumns())
                  .containsExactly(Column.CANONICAL_ID, Column.ALIAS_SEEN, Column.UPDATED_AT);
            });
  }

  @Test
  void anAliasAlreadyMappedElsewhereIsRejected() throws Exception {
    row("d1", "user-1", true);
    row("a1", "user-9", false);
    assertThat(apply(Type.ALIAS, "a1", "d1").rejection())
        .isEqualTo("alias 'a1' already maps to 'user-9'; alias to 'd1' (user-1) rejected");
  }

  @Test
  void mergeMovesEveryIdOfTheFirstCanonicalIdToTheSecond() throws Exception {
    row("x1", "c1", false);
    row("x2", "c1", false);
    row("c1", "c1", false);
    row("y1", "c2", false);
    IdentityRules.Outcome outcome = apply(Type.MERGE, "x1", "y1");
    assertThat(outcome.changed())
        .extracting(IdentityRecord::distinctId)
        .containsExactlyInAnyOrder("x1", "x2", "c1");
    assertThat(outcome.changed()).allSatisfy(r -> assertThat(r.canonicalId()).isEqualTo("c2"));
    assertThat(outcome.changed())
        .allSatisfy(
            r ->
                assertThat(r.changedColumns())
                    .containsExactly(Column.CANONICAL_ID, Column.UPDATED_AT));
    // A replay finds them merged: nothing to do.
    outcome.changed().forEach(r -> row(r.distinctId(), "c2", false));
    assertThat(apply(Type.MERGE, "x1", "y1").changed()).isEmpty();
  }

  @Test
  void aMergeOverTheCapIsRejected() throws Exception {
    for (int i = 0; i < 4; i++) {
      row("x" + i, "c1", false);
    }
    assertThat(apply(Type.MERGE, "x1", "other").rejection())
        .isEqualTo("merge would move more than 3 distinct ids (cap identity.merge-cap = 3)");
  }

  @Test
  void identifyingAgainIsANoOpEvenWhenTheUsersClusterOutgrewTheCap() throws Exception {
    row("d1", "user-1", true);
    for (int i = 0; i < 4; i++) {
      row("x" + i, "user-1", false);
    }
    IdentityRules.Outcome outcome = apply(Type.IDENTIFY, "d1", "user-1");
    assertThat(outcome.isRejected()).isFalse();
    assertThat(outcome.changed()).isEmpty();
  }

  @Test
  void settersMarkOnlyRealChangesAndEarliestSeenOnlyGoesDown() {
    IdentityRecord r = IdentityRecord.stored("p", "d", "d", 1_000L, false, false, false, null);
    r.setCanonicalId("d");
    r.setAliasSeen(false);
    r.lowerEarliestSeen(2_000);
    assertThat(r.isChanged()).isFalse();
    r.lowerEarliestSeen(500);
    r.touchIfChanged(9_000); // earliest_seen alone does not stamp updated_at
    assertThat(r.changedColumns()).containsExactly(Column.EARLIEST_SEEN);
    assertThat(r.earliestSeen()).isEqualTo(500);
  }

  // --- helpers

  private void row(String distinctId, String canonicalId, boolean identified) {
    table.put(
        distinctId,
        IdentityRecord.stored("p", distinctId, canonicalId, null, identified, false, false, null));
  }

  private IdentityRules.Outcome apply(Type type, String distinctId, String targetId)
      throws Exception {
    Map<String, IdentityRecord> read = new HashMap<>();
    IdentityRules.Lookup lookup =
        new IdentityRules.Lookup() {
          @Override
          public IdentityRecord get(String id) {
            return read.computeIfAbsent(
                id,
                k -> {
                  IdentityRecord r = table.get(k);
                  return r == null
                      ? IdentityRecord.unseen("p", k)
                      : IdentityRecord.stored(
                          "p",
                          k,
                          r.canonicalId(),
                          r.earliestSeen(),
                          r.identifySeen(),
                          r.aliasSeen(),
                          r.peopleUpdateSeen(),
                          r.updatedAt());
                });
          }

          @Override
          public List<IdentityRecord> byCanonical(String canonicalId, int limit) {
            List<IdentityRecord> rows = new ArrayList<>();
            table.values().stream()
                .filter(r -> r.canonicalId().equals(canonicalId))
                .limit(limit)
                .forEach(r -> rows.add(get(r.distinctId())));
            return rows;
          }
        };
    return rules.apply(new IdentityEvent("e", type, "p", distinctId, targetId, AT), lookup);
  }
}
