package dev.weir.it.failover;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Sends a workload's batches, four a second, from start to {@link #stop()}. A batch that fails (a
 * service is down) is sent again until it goes through, so input keeps flowing through every
 * failure the test causes. A record Kafka gave up on ({@link dev.weir.it.Kafka#sendAll}, an {@link
 * AssertionError}) is not re-sent: {@link #stop()} reports it, as the rest of its batch did go
 * through.
 */
final class ContinuousInput implements AutoCloseable {

  private static final long PAUSE_MS = 250;
  private static final long GIVE_UP_MS = 180_000;

  private final AtomicBoolean sending = new AtomicBoolean(true);
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Thread thread;

  ContinuousInput(Workload workload) {
    thread = new Thread(() -> run(workload), "failover input");
    thread.start();
  }

  private void run(Workload workload) {
    try {
      while (sending.get()) {
        int next = sent.get() + 1;
        long firstTry = System.currentTimeMillis();
        while (true) {
          try {
            workload.send(next);
            break;
          } catch (Exception serviceDown) {
            if (System.currentTimeMillis() - firstTry > GIVE_UP_MS) {
              throw serviceDown;
            }
            retries.incrementAndGet();
            Thread.sleep(500);
          }
        }
        sent.set(next);
        Thread.sleep(PAUSE_MS);
      }
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  /** Stops sending; returns how many batches were sent, all of them completely. */
  int stop() throws InterruptedException {
    sending.set(false);
    thread.join();
    assertThat(failure.get()).as("the input failed").isNull();
    return sent.get();
  }

  /** Batches sent again because a service was down. */
  int retries() {
    return retries.get();
  }

  @Override
  public void close() throws InterruptedException {
    sending.set(false);
    thread.join();
  }
}
