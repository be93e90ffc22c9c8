package dev.weir.it;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/** Polls a value until it satisfies a condition; the last value is returned for the assertion. */
public final class Await {

  private Await() {}

  public static <T> T until(Duration timeout, Callable<T> value, Predicate<T> done)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = value.call();
    while (!done.test(last) && System.nanoTime() < deadline) {
      Thread.sleep(250);
      last = value.call();
    }
    return last;
  }
}
