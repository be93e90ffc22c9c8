package dev.weir.common.store;

import dev.weir.common.postgres.PostgresTimeouts;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Counter;

/**
 * The writes waiting for a {@link BatchStore} in one task, several writes of one key folded into
 * one, and the one way a batch of them is written: a write that a PostgreSQL lock or statement
 * timeout stopped is retried with the same batch ({@link PostgresTimeouts#retrying}), any other
 * failure names the store. The sink ({@link BufferedStoreSink}) and the operators that write before
 * they pass documents on share it.
 *
 * @param <T> a write
 */
public final class WriteBuffer<T> {

  /** The key writes are folded by. */
  @FunctionalInterface
  public interface KeyOf<T> extends Serializable {
    String key(T write);
  }

  /** Folds a later write of a key into the buffered one; null when nothing is left to do. */
  @FunctionalInterface
  public interface Fold<T> extends Serializable {
    T then(T earlier, T later);
  }

  private final String description;
  private final KeyOf<T> keyOf;
  private final Fold<T> fold;
  private final int maxBuffered;
  private final PostgresTimeouts timeouts;
  private Map<String, T> buffer = new LinkedHashMap<>();

  /**
   * @param description the store, for messages (e.g. "the feed store at jdbc:...")
   * @param maxBuffered how many keys a batch holds at most
   */
  public WriteBuffer(
      String description,
      KeyOf<T> keyOf,
      Fold<T> fold,
      int maxBuffered,
      PostgresTimeouts timeouts) {
    this.description = description;
    this.keyOf = keyOf;
    this.fold = fold;
    this.maxBuffered = maxBuffered;
    this.timeouts = timeouts;
  }

  public String description() {
    return description;
  }

  public int maxBuffered() {
    return maxBuffered;
  }

  /** Buffers a write, folded into the one of its key; returns how many keys wait. */
  public int add(T write) {
    buffer.merge(keyOf.key(write), write, fold::then);
    return buffer.size();
  }

  public int size() {
    return buffer.size();
  }

  public boolean isEmpty() {
    return buffer.isEmpty();
  }

  /** The waiting writes as a batch, in the order their keys came; the buffer is empty after. */
  public List<T> take() {
    List<T> batch = new ArrayList<>(buffer.values());
    buffer = new LinkedHashMap<>();
    return batch;
  }

  /**
   * Writes a batch to {@code store}, again while PostgreSQL cancels it on a timeout (each counted
   * in {@code postgresTimeouts}); returns what the store says back.
   */
  public <R> R write(BatchStore<T, R> store, List<T> batch, Counter postgresTimeouts)
      throws IOException {
    try {
      return timeouts.retrying(description, postgresTimeouts, () -> store.write(batch));
    } catch (Exception e) {
      throw new IOException(
          "writing " + batch.size() + " rows to " + description + " failed: " + e.getMessage(), e);
    }
  }
}
