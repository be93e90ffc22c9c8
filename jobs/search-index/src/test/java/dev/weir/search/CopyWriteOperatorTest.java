package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.store.BatchStore;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.CopyWrite;
import dev.weir.schema.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class CopyWriteOperatorTest {

  /** Batches the store was asked to write, as {@code id@version} or {@code id@version whole}. */
  private static final List<List<String>> ATTEMPTS = new ArrayList<>();

  @Test
  void aBatchALockTimeoutStoppedIsWrittenAgainAndPassedOnOnce() throws Exception {
    ATTEMPTS.clear();
    try (var harness = new OneInputStreamOperatorTestHarness<>(writer(LockedOnce::new))) {
      harness.open();
      DocumentChange dune = DocumentChange.deletion("1", 7);
      harness.processElement(new StreamRecord<>(dune, 0));
      harness.prepareSnapshotPreBarrier(1);

      assertThat(ATTEMPTS).containsExactly(List.of("1@7"), List.of("1@7"));
      assertThat(harness.extractOutputValues())
          .singleElement()
          .satisfies(d -> assertThat(d.id + "@" + d.version).isEqualTo("1@7"));
    }
  }

  @Test
  void aRefusedDocumentIsDeadLetteredNotIndexedAndItsNextChangeWrittenWholeAfterARestore()
      throws Exception {
    ATTEMPTS.clear();
    OperatorSubtaskState snapshot;
    try (var harness = new OneInputStreamOperatorTestHarness<>(writer(RefusesBad::new))) {
      harness.open();
      harness.processElement(new StreamRecord<>(change("1", 3, "good"), 0));
      harness.processElement(new StreamRecord<>(change("2", 4, "bad"), 0));
      harness.processElement(new StreamRecord<>(change("3", 5, "good"), 0));
      harness.prepareSnapshotPreBarrier(1);
      snapshot = harness.snapshot(1, 1);

      assertThat(harness.extractOutputValues())
          .extracting(d -> d.id + "@" + d.version)
          .containsExactly("1@3", "3@5");
      assertThat(harness.getSideOutput(DeadLetters.TAG))
          .singleElement()
          .satisfies(
              r -> {
                DeadLetter letter = r.getValue();
                assertThat(letter.reason()).isEqualTo("refused: document '2'");
                assertThat(letter.sourceTopic()).isEqualTo("books_copy");
                assertThat(letter.sourceOffset()).isEqualTo(4);
                assertThat(new String(letter.rawValue(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"title\":\"bad\"}");
              });
    }
    try (var harness = new OneInputStreamOperatorTestHarness<>(writer(RefusesBad::new))) {
      harness.initializeState(snapshot);
      harness.open();
      harness.processElement(new StreamRecord<>(change("2", 6, "good"), 0));
      harness.processElement(new StreamRecord<>(change("3", 7, "good"), 0));
      harness.prepareSnapshotPreBarrier(2);
      // The join sent document 2's change as what changed since the refused one: written whole.
      assertThat(ATTEMPTS.get(ATTEMPTS.size() - 1)).containsExactly("2@6 whole", "3@7");
      assertThat(harness.extractOutputValues())
          .extracting(d -> d.id + "@" + d.version)
          .containsExactly("2@6", "3@7");
      assertThat(harness.getSideOutput(DeadLetters.TAG)).isNull();
    }
  }

  private static CopyWriteOperator writer(BatchStore.Opener<DocumentChange, CopyWrite> store) {
    return new CopyWriteOperator(
        SearchIndexJob.NAME,
        "books_copy",
        store,
        60_000,
        1000,
        "the copy books",
        PostgresTimeouts.of(WeirConfig.from(Map.of(), Map.of())));
  }

  /** A change of one field of two, not new. */
  private static DocumentChange change(String id, long version, String title) {
    DocumentChange d = new DocumentChange();
    d.id = id;
    d.version = version;
    d.values = new String[] {"\"" + title + "\"", "1"};
    d.changed = new boolean[] {true, false};
    return d;
  }

  private static String attempt(DocumentChange d) {
    boolean whole = d.isNew && d.changed != null && d.changed[0] && d.changed[1];
    return d.id + "@" + d.version + (whole ? " whole" : "");
  }

  private static final class LockedOnce implements BatchStore<DocumentChange, CopyWrite> {
    @Override
    public CopyWrite write(Collection<DocumentChange> batch) throws SQLException {
      ATTEMPTS.add(batch.stream().map(CopyWriteOperatorTest::attempt).toList());
      if (ATTEMPTS.size() == 1) {
        throw new SQLException("ERROR: canceling statement due to lock timeout", "55P03");
      }
      return new CopyWrite(Map.of("1", 7L), List.of());
    }

    @Override
    public long rowsWritten() {
      return ATTEMPTS.size() - 1;
    }

    @Override
    public void close() {}
  }

  /** Refuses every document whose first field is "bad", as the real copy reports it. */
  private static final class RefusesBad implements BatchStore<DocumentChange, CopyWrite> {
    @Override
    public CopyWrite write(Collection<DocumentChange> batch) {
      ATTEMPTS.add(batch.stream().map(CopyWriteOperatorTest::attempt).toList());
      Map<String, Long> held = new HashMap<>();
      List<CopyWrite.Refusal> refused = new ArrayList<>();
      for (DocumentChange d : batch) {
        if (d.values[0].equals("\"bad\"")) {
          byte[] document = ("{\"title\":" + d.values[0] + "}").getBytes(StandardCharsets.UTF_8);
          refused.add(new CopyWrite.Refusal(d, document, "refused: document '" + d.id + "'"));
        } else {
          held.put(d.id, d.version);
        }
      }
      return new CopyWrite(held, refused);
    }

    @Override
    public long rowsWritten() {
      return 0;
    }

    @Override
    public void close() {}
  }
}
