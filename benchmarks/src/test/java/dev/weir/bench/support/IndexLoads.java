package dev.weir.bench.support;

import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;

/** Timed loads made up for the tests: raw bulk passes, weir's loads, their stretches. */
public final class IndexLoads {

  /** The same raw bulk measured 997/s, then 644/s, then 812/s: noisy on a shared machine. */
  public static final List<IndexLoad> PASSES =
      List.of(pass("first", 997), pass("second", 644), pass("third", 812));

  private IndexLoads() {}

  public static Offset<Double> within() {
    return Offset.offset(1e-3);
  }

  /** A pass of 10,000 documents at {@code rate}/s, its CPU telling it from the others. */
  public static IndexLoad pass(String name, double rate) {
    return new IndexLoad(
        name,
        10_000,
        10_000 / rate,
        8_000,
        8_000 / rate,
        Map.of("Elasticsearch", rate),
        Map.of(),
        null,
        null,
        List.of());
  }

  /** {@code load}, its last 8,000 documents at {@code rate}/s. */
  public static IndexLoad steadyAt(IndexLoad load, double rate) {
    return afterWarmUp(load, 8_000 / rate);
  }

  /** {@code load}, its stretch after warm-up too short to measure. */
  public static IndexLoad shortAfterWarmUp(IndexLoad load) {
    return afterWarmUp(load, IndexLoad.MIN_STEADY_SECONDS / 2);
  }

  private static IndexLoad afterWarmUp(IndexLoad load, double steadySeconds) {
    return new IndexLoad(
        load.name(),
        load.documents(),
        load.seconds(),
        8_000,
        steadySeconds,
        load.cpu(),
        load.steadyCpu(),
        null,
        null,
        List.of());
  }

  /** 10,000 documents, the last 8,000 after warm-up, with the CPU of both stretches. */
  public static IndexLoad metered(
      String name,
      double seconds,
      double steadySeconds,
      Map<String, Double> cpu,
      Map<String, Double> steadyCpu) {
    return new IndexLoad(
        name, 10_000, seconds, 8_000, steadySeconds, cpu, steadyCpu, null, null, List.of());
  }

  public static IndexLoad load(
      String name, long documents, double seconds, List<Double> passRates) {
    return new IndexLoad(
        name, documents, seconds, documents, seconds, Map.of(), Map.of(), null, null, passRates);
  }
}
