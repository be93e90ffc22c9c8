package dev.weir.search;

import static dev.weir.search.DocumentJoinerTest.brand;
import static dev.weir.search.DocumentJoinerTest.category;
import static dev.weir.search.DocumentJoinerTest.price;
import static dev.weir.search.DocumentJoinerTest.product;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * What the join writes to its state in RocksDB (the Kubernetes deployments' backend, with
 * incremental checkpoints): a change that leaves a product's description as it was must not write
 * the description again, or every price change would add several kB to the next checkpoint.
 */
class DocumentJoinerStateTest {

  private static final int PRODUCTS = 40;
  private static final int DESCRIPTION_CHARS = 6_000;

  private KeyedBroadcastOperatorTestHarness<Long, ProductInput, Dimension, SearchDocument> harness;
  private long checkpointId;
  private final Map<Long, String> descriptions = new HashMap<>();

  /** What a checkpoint with no change in it adds (RocksDB's MANIFEST, OPTIONS, the metadata). */
  private long unchanged;

  @BeforeEach
  void open() throws Exception {
    harness = DocumentJoinerSavepointTest.harness();
    EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
    rocksDb.setRocksDBOptions(new NoCompactions());
    harness.setStateBackend(rocksDb);
    harness.setup();
    harness.open();
    harness.processBroadcastElement(brand(1, "Acme", 100), 0);
    harness.processBroadcastElement(category(1, "Outdoor", null, 100), 0);
    harness.processBroadcastElement(category(11, "Hiking", 1L, 100), 0);
    Random random = new Random(42);
    for (long id = 1; id <= PRODUCTS; id++) {
      descriptions.put(id, text(random));
      harness.processElement(
          ProductInput.of(product(id, "Product " + id, descriptions.get(id), 200 + id)), 0);
    }
    checkpoint();
    unchanged = checkpoint();
  }

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  @Test
  void aPriceChangeWritesNoDescriptionToTheNextCheckpoint() throws Exception {
    for (long id = 1; id <= PRODUCTS; id++) {
      harness.processElement(ProductInput.of(price(id, "10.00", 5)), 0);
    }
    long written = checkpoint() - unchanged;

    assertThat(lastDocuments())
        .allSatisfy(d -> assertThat(d.description).isEqualTo(descriptions.get(d.productId)));
    // Each of the 40 descriptions alone is 6 kB (random letters: RocksDB's compression cannot
    // shrink them); what the products' prices take is a few hundred bytes each.
    assertThat(written).isLessThan(PRODUCTS * 1_000L);
  }

  @Test
  void aBrandRenameWritesNoDescriptionEither() throws Exception {
    harness.processBroadcastElement(brand(1, "Acme Outdoor", 400), 0);
    long written = checkpoint() - unchanged;

    // Each product's own description, read for each product's key as the rename reaches it.
    assertThat(lastDocuments())
        .allSatisfy(d -> assertThat(d.brandName).isEqualTo("Acme Outdoor"))
        .allSatisfy(d -> assertThat(d.description).isEqualTo(descriptions.get(d.productId)));
    assertThat(written).isLessThan(PRODUCTS * 1_000L);
  }

  @Test
  void aDescriptionEditIsWritten() throws Exception {
    Random random = new Random(7);
    for (long id = 1; id <= PRODUCTS; id++) {
      harness.processElement(
          ProductInput.of(product(id, "Product " + id, text(random), 300 + id)), 0);
    }
    long written = checkpoint() - unchanged;

    assertThat(written).isGreaterThan(PRODUCTS * (long) DESCRIPTION_CHARS);
  }

  /** Takes an incremental checkpoint, confirms it, and returns the bytes it added. */
  private long checkpoint() throws Exception {
    checkpointId++;
    OperatorSubtaskState state = harness.snapshot(checkpointId, checkpointId);
    harness.notifyOfCompletedCheckpoint(checkpointId);
    return state.getManagedKeyedState().stream()
        .mapToLong(KeyedStateHandle::getCheckpointedSize)
        .sum();
  }

  /** The documents of the last change of every product. */
  private List<SearchDocument> lastDocuments() {
    List<SearchDocument> out = harness.extractOutputValues();
    return out.subList(out.size() - PRODUCTS, out.size());
  }

  /**
   * Without compactions a checkpoint's new files hold exactly what changed since the last one: a
   * compaction in the background rewrites older files at any moment, and the next checkpoint would
   * upload them again, whatever the job wrote.
   */
  static final class NoCompactions implements RocksDBOptionsFactory {
    @Override
    public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handles) {
      return current;
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
        ColumnFamilyOptions current, Collection<AutoCloseable> handles) {
      return current.setDisableAutoCompactions(true);
    }
  }

  private static String text(Random random) {
    StringBuilder s = new StringBuilder(DESCRIPTION_CHARS);
    for (int i = 0; i < DESCRIPTION_CHARS; i++) {
      s.append((char) ('a' + random.nextInt(26)));
    }
    return s.toString();
  }
}
