package dev.weir.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DocumentOperationTest {

  private static DocumentOperation index(String id, long version) {
    return DocumentOperation.index("i", id, version, "{}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aDocumentChangedTwiceInOneBulkIsSentOnceAtItsHighestVersion() {
    DocumentOperation first = index("1", 64);
    DocumentOperation other = index("2", 70);
    DocumentOperation second = index("1", 128);
    assertThat(DocumentOperation.withoutSuperseded(List.of(first, other, second)))
        .containsExactly(other, second);
  }

  @Test
  void aLowerVersionAfterAHigherOneIsDroppedAsElasticsearchWouldRefuseIt() {
    DocumentOperation newer = index("1", 128);
    DocumentOperation deletion = DocumentOperation.delete("i", "1", 192);
    DocumentOperation older = index("1", 64);
    assertThat(DocumentOperation.withoutSuperseded(List.of(newer, deletion, older)))
        .containsExactly(deletion);
  }

  @Test
  void equalVersionsKeepTheFirstAsOnlyItWouldApply() {
    DocumentOperation first = index("1", 64);
    DocumentOperation again = index("1", 64);
    assertThat(DocumentOperation.withoutSuperseded(List.of(first, again))).containsExactly(first);
  }

  @Test
  void withoutVersionsTheLastWriteWins() {
    DocumentOperation first = index("1", DocumentOperation.NO_VERSION);
    DocumentOperation last = DocumentOperation.delete("i", "1", DocumentOperation.NO_VERSION);
    assertThat(DocumentOperation.withoutSuperseded(List.of(first, last))).containsExactly(last);
  }

  @Test
  void theSameIdInAnotherIndexOrMixedVersioningIsLeftAlone() {
    DocumentOperation a = index("1", 64);
    DocumentOperation b = DocumentOperation.index("j", "1", 32, new byte[] {'{', '}'});
    DocumentOperation unversioned = index("1", DocumentOperation.NO_VERSION);
    assertThat(DocumentOperation.withoutSuperseded(List.of(a, b, unversioned)))
        .containsExactly(a, b, unversioned);
  }

  @Test
  void oneIdAtTwoRoutingsIsTwoDocumentsAndAMoveIsNeverDropped() {
    DocumentOperation atA = index("1", 64).routedBy("a");
    DocumentOperation movedToB = index("1", 128).routedBy("b").movedFrom("a");
    DocumentOperation againAtB = index("1", 192).routedBy("b");
    // The move to b deletes the copy at a: dropping it for the later write at b would leave it.
    assertThat(DocumentOperation.withoutSuperseded(List.of(atA, movedToB, againAtB)))
        .containsExactly(atA, movedToB, againAtB);
    DocumentOperation atBAgain = index("1", 256).routedBy("b");
    assertThat(DocumentOperation.withoutSuperseded(List.of(againAtB, atBAgain)))
        .containsExactly(atBAgain);
  }
}
