package dev.weir.search;

import static dev.weir.search.DocumentJoinerTest.brand;
import static dev.weir.search.DocumentJoinerTest.category;
import static dev.weir.search.DocumentJoinerTest.price;
import static dev.weir.search.DocumentJoinerTest.product;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The join's state in a savepoint of an earlier weir restores: a product's row (its description
 * above all: the job re-sends it with every change) and the brands and categories it joins.
 *
 * <p>{@code savepoints/document-joiner-1.snapshot} was written by weir before descriptions were
 * kept as UTF-8 (Flink's StringSerializer), {@code document-joiner-2.snapshot} before they were
 * kept apart from the row ({@link DocumentJoiner#LARGE_VALUES}); write a snapshot of today's state
 * with {@code -Dweir.write-snapshot=<file>}.
 */
class DocumentJoinerSavepointTest {

  static final String DESCRIPTION = "Two-person tent. ".repeat(400) + "Zelt für zwei: 2,1 kg ⛺";

  /** The Kubernetes deployments keep state in RocksDB, local runs on the heap. */
  enum Backend {
    HEAP,
    ROCKSDB
  }

  @ParameterizedTest
  @CsvSource({
    "document-joiner-1.snapshot, HEAP",
    "document-joiner-1.snapshot, ROCKSDB",
    "document-joiner-2.snapshot, HEAP",
    "document-joiner-2.snapshot, ROCKSDB"
  })
  void aSavepointOfAnEarlierWeirRestores(String snapshot, Backend backend) throws Exception {
    String written = System.getProperty("weir.write-snapshot");
    if (written != null) {
      OperatorSnapshotUtil.writeStateHandle(snapshotOfAProduct(), written);
    }
    try (KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> restored =
        restoredFrom(
            OperatorSnapshotUtil.readStateHandle(
                Path.of(getClass().getResource("/savepoints/" + snapshot).toURI()).toString()),
            backend)) {
      restored.processElement(ProductInput.of(price(7, "99.00", 8)), 0);
      // The next change holds the description in the state of its own, and the one after reads it
      // from there.
      restored.processElement(ProductInput.of(price(7, "98.00", 9)), 0);

      SearchDocument doc = last(restored);
      assertThat(doc.isNew).isFalse();
      assertThat(doc.price).isEqualByComparingTo("98.00");
      assertThat(doc.description).isEqualTo(DESCRIPTION);
      assertThat(doc.brandName).isEqualTo("Acme");
      assertThat(doc.categoryPath).containsExactly("Outdoor", "Hiking");
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void todaysStateRestores(Backend backend) throws Exception {
    try (KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> restored =
        restoredFrom(snapshotOfAProduct(), backend)) {
      restored.processElement(ProductInput.of(price(7, "99.00", 8)), 0);

      assertThat(last(restored).description).isEqualTo(DESCRIPTION);
    }
  }

  /** Product 7 (with a price, a brand and a category path) in the join's state. */
  private static OperatorSubtaskState snapshotOfAProduct() throws Exception {
    try (KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> harness =
        harness()) {
      harness.setup();
      harness.open();
      harness.processBroadcastElement(brand(1, "Acme", 100), 0);
      harness.processBroadcastElement(category(1, "Outdoor", null, 100), 0);
      harness.processBroadcastElement(category(11, "Hiking", 1L, 100), 0);
      harness.processElement(ProductInput.of(product(7, "Tent", DESCRIPTION, 200)), 0);
      harness.processElement(ProductInput.of(price(7, "10.00", 5)), 0);
      // A savepoint (canonical format): what an upgrade restores, into either backend.
      return harness
          .snapshotWithLocalState(1, 1, SavepointType.savepoint(SavepointFormatType.CANONICAL))
          .getJobManagerOwnedState();
    }
  }

  private static KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument>
      restoredFrom(OperatorSubtaskState state, Backend backend) throws Exception {
    KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> harness =
        harness();
    if (backend == Backend.ROCKSDB) {
      harness.setStateBackend(new EmbeddedRocksDBStateBackend());
    }
    harness.setup();
    harness.initializeState(state);
    harness.open();
    return harness;
  }

  /** The join's operator, for a harness that takes a state backend and snapshots. */
  static KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> harness()
      throws Exception {
    return new KeyedBroadcastOperatorTestHarness<>(
        new CoBroadcastWithKeyedOperator<>(
            new DocumentJoiner(
                () -> {
                  throw new AssertionError("the description must come from the join's state");
                },
                java.time.Duration.ofDays(7)),
            List.of(DocumentJoiner.BRANDS, DocumentJoiner.CATEGORIES)),
        ProductInput::productId,
        Types.LONG,
        128,
        1,
        0);
  }

  private static SearchDocument last(
      KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> harness) {
    List<SearchDocument> out = harness.extractOutputValues();
    return out.get(out.size() - 1);
  }
}
