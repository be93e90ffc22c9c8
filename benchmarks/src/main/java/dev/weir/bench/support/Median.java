package dev.weir.bench.support;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The median run of several, where one run on a shared machine is noisy. */
public final class Median {

  private Median() {}

  /**
   * The median of {@code runs} by {@code rate} (of an even count, the higher of the middle two):
   * the services' limits by records/s, the raw bulk's passes by documents/s.
   */
  public static <T> T of(List<T> runs, ToDoubleFunction<? super T> rate) {
    List<T> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingDouble(rate));
    return sorted.get(sorted.size() / 2);
  }
}
