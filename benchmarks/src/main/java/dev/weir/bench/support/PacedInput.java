package dev.weir.bench.support;

import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A live input for a latency measurement: {@code total} records at {@code rate} per second, sent
 * from a thread of its own (flushed every 5 ms, so that none waits in the producer) while the
 * caller reads what they cause.
 */
public final class PacedInput implements AutoCloseable {

  /**
   * How long the records took to become visible where the caller reads them, in milliseconds.
   *
   * @param events the records measured
   */
  public record Latency(long events, long visibleP50, long visibleP99) {

    /** The percentiles of each record's latency (sorted in place). */
    public static Latency of(long[] visibleMillis) {
      Arrays.sort(visibleMillis);
      return new Latency(
          visibleMillis.length, percentile(visibleMillis, 0.5), percentile(visibleMillis, 0.99));
    }
  }

  /** The {@code p} percentile (0 to 1) of {@code sorted}, by the nearest rank. */
  public static long percentile(long[] sorted, double p) {
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  }

  /** Sends the {@code i}-th record (from 0). */
  @FunctionalInterface
  public interface Send {
    void send(EventProducer producer, int i) throws Exception;
  }

  private final String name;
  public final AtomicLong sent = new AtomicLong();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final Thread thread;

  public PacedInput(WeirConfig config, String name, int rate, int total, Send send) {
    this.name = name;
    this.thread =
        new Thread(
            () -> {
              try (EventProducer producer = new EventProducer(config)) {
                long start = System.nanoTime();
                while (sent.get() < total) {
                  long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L);
                  while (sent.get() < due) {
                    send.send(producer, (int) sent.get());
                    sent.incrementAndGet();
                  }
                  producer.flush();
                  Thread.sleep(5);
                }
              } catch (Exception e) {
                failure.set(e);
              }
            },
            name);
    thread.start();
  }

  /** How many records have been sent (each after what {@link Send} wrote before sending it). */
  public int sent() {
    if (failure.get() != null) {
      throw new IllegalStateException(name + " failed", failure.get());
    }
    return (int) sent.get();
  }

  /** Waits for the last record to be sent. */
  @Override
  public void close() throws InterruptedException {
    thread.join();
  }
}
