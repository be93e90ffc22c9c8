package dev.weir.bench.support;

import java.time.Instant;
import java.util.Locale;

/** What every results file starts with: the title, the command that regenerates it, when, where. */
public final class BenchReport {

  private BenchReport() {}

  /** "# title", the command, and "Measured: <now>, <cores> cores, " for the caller to go on. */
  public static StringBuilder header(String title, String command) {
    return new StringBuilder("# ")
        .append(title)
        .append("\n\nRegenerate: `")
        .append(command)
        .append("`  \nMeasured: ")
        .append(Instant.now())
        .append(", ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores, ");
  }

  /**
   * A judged ratio to two decimals, or to as many more as keep it from reading as its target: 2.003
   * against "≤ 2×" is "2.003×", not a "2.00×" marked NOT met.
   */
  public static String shown(double ratio, double target, String unit) {
    int decimals = 2;
    while (decimals < 6
        && ratio != target
        && Double.parseDouble(String.format(Locale.ROOT, "%." + decimals + "f", ratio)) == target) {
      decimals++;
    }
    return String.format("%." + decimals + "f", ratio) + unit;
  }
}
