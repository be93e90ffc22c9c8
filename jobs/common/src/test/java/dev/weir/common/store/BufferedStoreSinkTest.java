package dev.weir.common.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresTimeouts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60) // a batch written on the task thread would hang the first case
class BufferedStoreSinkTest {

  /** Writes of "key=value"; a later write of a key replaces the buffered one. */
  private static BufferedStoreSink<String> sink(int maxBuffered) {
    return new BufferedStoreSink<>(
        "the test store",
        () -> {
          throw new UnsupportedOperationException("tests open their own");
        },
        w -> w.substring(0, w.indexOf('=')),
        (earlier, later) -> later,
        60_000,
        maxBuffered,
        PostgresTimeouts.of(WeirConfig.from(Map.of(), Map.of())));
  }

  @Test
  void aFullBatchIsWrittenWhileTheTaskGoesOnAndACheckpointWaitsForIt() throws Exception {
    RecordingStore store = new RecordingStore();
    store.hold = new CountDownLatch(1);
    SimpleCounter rows = new SimpleCounter();
    SinkWriter<String> writer = sink(2).writer(store, new NoTime(), rows, new SimpleCounter());

    writer.write("a=1", null);
    writer.write("a=2", null); // folded into a=1's place
    writer.write("b=1", null); // full: handed off, held in the store
    writer.write("c=1", null); // the task goes on meanwhile
    assertThat(store.started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(store.batches).isEmpty();

    store.hold.countDown();
    writer.flush(false);
    assertThat(store.batches).containsExactly(List.of("a=2", "b=1"), List.of("c=1"));
    assertThat(store.threads).doesNotContain(Thread.currentThread().getName());
    assertThat(rows.getCount()).isEqualTo(3);
    writer.close();
  }

  @Test
  void writesWaitInTheBufferWhileABatchIsWrittenUpToFourBuffersWorth() throws Exception {
    RecordingStore store = new RecordingStore();
    store.hold = new CountDownLatch(1);
    SinkWriter<String> writer =
        sink(2).writer(store, new NoTime(), new SimpleCounter(), new SimpleCounter());
    writer.write("a=1", null);
    writer.write("b=1", null); // full: handed off, held in the store
    assertThat(store.started.await(10, TimeUnit.SECONDS)).isTrue();

    // The task goes on while the batch is written: it would wait here if a full buffer waited.
    for (int i = 0; i < 7; i++) {
      writer.write("k" + i + "=1", null);
    }
    assertThat(store.batches).isEmpty();

    store.hold.countDown();
    writer.write("k7=1", null); // eight waiting: handed off once the batch before it is written
    writer.flush(false);
    assertThat(store.batches).hasSize(2);
    assertThat(store.batches.get(1)).hasSize(8);
    writer.close();
  }

  @Test
  void aBatchThatFailsInTheBackgroundFailsTheNextWriteNamingTheStore() throws Exception {
    RecordingStore store = new RecordingStore();
    store.failure = new IllegalStateException("relation \"feed_entry\" does not exist");
    SinkWriter<String> writer =
        sink(1).writer(store, new NoTime(), new SimpleCounter(), new SimpleCounter());
    writer.write("a=1", null); // handed off; fails there

    // The next write after the failure, or at the latest the checkpoint, throws.
    assertThatThrownBy(
            () -> {
              writer.write("b=1", null);
              writer.flush(false);
            })
        .isInstanceOf(IOException.class)
        .hasMessageContaining("writing 1 rows to the test store failed")
        .hasMessageContaining("feed_entry");
    writer.close();
  }

  private static final class RecordingStore implements BatchStore<String, Void> {
    final List<List<String>> batches = new ArrayList<>();
    final List<String> threads = new ArrayList<>();
    final CountDownLatch started = new CountDownLatch(1);
    CountDownLatch hold = new CountDownLatch(0);
    RuntimeException failure;
    long rows;

    @Override
    public synchronized Void write(Collection<String> batch) throws Exception {
      started.countDown();
      hold.await();
      if (failure != null) {
        throw failure;
      }
      batches.add(new ArrayList<>(batch));
      threads.add(Thread.currentThread().getName());
      rows += batch.size();
      return null;
    }

    @Override
    public synchronized long rowsWritten() {
      return rows;
    }

    @Override
    public void close() {}
  }

  /** Time that never passes: only full batches and checkpoints write. */
  private static final class NoTime implements ProcessingTimeService {
    @Override
    public long getCurrentProcessingTime() {
      return 0;
    }

    @Override
    public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback target) {
      return null;
    }
  }
}
