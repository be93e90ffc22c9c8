package dev.weir.bench.support;

import java.util.Map;

/** Steady-state sides made up for the tests. */
public final class SteadySides {

  private SteadySides() {}

  /** A side of {@code events} in {@code seconds}, its JVM's CPU seconds and busiest thread's. */
  public static SteadyState.Side side(String name, long events, double seconds, double jvmCpu) {
    return new SteadyState.Side(
        name,
        events,
        seconds,
        Map.of(CpuUse.THIS_JVM, jvmCpu, CpuUse.BUSIEST, jvmCpu / 2),
        new CpuUse.Busiest("collate -> feed", seconds / 10));
  }
}
