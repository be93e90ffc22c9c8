package dev.weir.documents;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Two changes of one document folded into one write keep where the index holds it. */
class DocumentChangeTest {

  @Test
  void twoMovesFoldedDeleteAtTheRoutingTheIndexHolds() {
    DocumentChange first = change(1, "b", "a"); // written at a, now at b
    DocumentChange second = change(2, "c", "b"); // then moved from b to c

    DocumentChange folded = DocumentChange.then(first, second);

    // The first was never written: the index still holds the document at a.
    assertThat(folded.routing).isEqualTo("c");
    assertThat(folded.rerouted).isTrue();
    assertThat(folded.previousRouting).isEqualTo("a");
  }

  @Test
  void aMoveAndItsReturnFoldedAreNoMove() {
    DocumentChange folded = DocumentChange.then(change(1, "b", "a"), change(2, "a", "b"));

    assertThat(folded.routing).isEqualTo("a");
    assertThat(folded.rerouted).isFalse();
  }

  @Test
  void aMoveThenADeleteDeletesWhereTheIndexHoldsIt() {
    DocumentChange folded =
        DocumentChange.then(change(1, "b", "a"), DocumentChange.deletion("1", 2, "b"));

    assertThat(folded.deleted).isTrue();
    assertThat(folded.routing).isEqualTo("a");
  }

  @Test
  void aDeleteThenANewDocumentElsewhereMovesItFromWhereItWas() {
    DocumentChange recreated = change(2, "c", null);
    recreated.rerouted = false;
    recreated.previousRouting = null;

    DocumentChange folded = DocumentChange.then(DocumentChange.deletion("1", 1, "a"), recreated);

    assertThat(folded.routing).isEqualTo("c");
    assertThat(folded.rerouted).isTrue();
    assertThat(folded.previousRouting).isEqualTo("a");
  }

  /** Document 1 at {@code routing}, written before at {@code previous} (same: not moved). */
  private static DocumentChange change(long version, String routing, String previous) {
    DocumentChange d = new DocumentChange();
    d.id = "1";
    d.version = version;
    d.values = new String[] {"\"x\""};
    d.changed = new boolean[] {true};
    d.routing = routing;
    d.rerouted = previous != null && !previous.equals(routing);
    d.previousRouting = d.rerouted ? previous : null;
    return d;
  }
}
