package dev.weir.bench.support;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A count (documents in an index) polled every 100 ms in the background, remembering when it
 * reached what: a load's rate over any stretch of it, e.g. after its warm-up.
 */
public final class CountTimeline implements AutoCloseable {

  /** When the count was read, and what it was. */
  public record Sample(long nanoTime, long count) {}

  private final List<Sample> samples = new CopyOnWriteArrayList<>();
  private volatile Exception lastFailure;
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "count-timeline");
            t.setDaemon(true);
            return t;
          });

  public CountTimeline(Callable<Long> count) {
    poller.scheduleWithFixedDelay(
        () -> {
          try {
            samples.add(new Sample(System.nanoTime(), count.call()));
          } catch (Exception e) {
            // Not there yet (an index being created): the next poll reads it.
            lastFailure = e;
          }
        },
        0,
        100,
        TimeUnit.MILLISECONDS);
  }

  /** The last count read (0 before the first). */
  public long latest() {
    return samples.isEmpty() ? 0 : samples.get(samples.size() - 1).count();
  }

  /** The first sample at or above {@code count}, if there is one yet. */
  public Optional<Sample> firstReaching(long count) {
    return samples.stream().filter(s -> s.count() >= count).findFirst();
  }

  /** Waits for the count to reach {@code count}; returns the first sample that did. */
  public Sample await(long count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Sample> reached = firstReaching(count);
      if (reached.isPresent()) {
        return reached.get();
      }
      Thread.sleep(20);
    }
    long last = samples.isEmpty() ? -1 : samples.get(samples.size() - 1).count();
    throw new IllegalStateException(
        "waited " + timeout.toSeconds() + " s for " + count + ", have " + last, lastFailure);
  }

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
