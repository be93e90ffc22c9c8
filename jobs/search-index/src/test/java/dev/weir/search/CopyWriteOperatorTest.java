package dev.weir.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.store.BatchStore;
import dev.weir.documents.DocumentChange;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class CopyWriteOperatorTest {

  /** Batches the store was asked to write; the first one fails as a lock timeout does. */
  private static final List<List<String>> ATTEMPTS = new ArrayList<>();

  @Test
  void aBatchALockTimeoutStoppedIsWrittenAgainAndPassedOnOnce() throws Exception {
    ATTEMPTS.clear();
    CopyWriteOperator writer =
        new CopyWriteOperator(
            LockedOnce::new,
            60_000,
            1000,
            "the copy books",
            PostgresTimeouts.of(WeirConfig.from(Map.of(), Map.of())));
    try (var harness = new OneInputStreamOperatorTestHarness<>(writer)) {
      harness.open();
      DocumentChange dune = DocumentChange.deletion("1", 7);
      harness.processElement(new StreamRecord<>(dune, 0));
      harness.prepareSnapshotPreBarrier(1);

      assertThat(ATTEMPTS).containsExactly(List.of("1"), List.of("1"));
      assertThat(harness.extractOutputValues())
          .singleElement()
          .satisfies(d -> assertThat(d.id + "@" + d.version).isEqualTo("1@7"));
    }
  }

  private static final class LockedOnce implements BatchStore<DocumentChange, Map<String, Long>> {
    @Override
    public Map<String, Long> write(Collection<DocumentChange> batch) throws SQLException {
      ATTEMPTS.add(batch.stream().map(d -> d.id).toList());
      if (ATTEMPTS.size() == 1) {
        throw new SQLException("ERROR: canceling statement due to lock timeout", "55P03");
      }
      return Map.of("1", 7L);
    }

    @Override
    public long rowsWritten() {
      return ATTEMPTS.size() - 1;
    }

    @Override
    public void close() {}
  }
}
