package dev.weir.bench.support;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the results files share: the start (the title, the command that regenerates it, when,
 * where), how a judged ratio and a range are shown, the rows of CPU seconds by process.
 */
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

  /** The lowest and the highest of {@code values}, each in {@code format}: "low–high". */
  public static String span(List<Double> values, String format) {
    double low = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double high = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return String.format(Locale.ROOT, format + "–" + format, low, high);
  }

  /**
   * Markdown rows "| process | weir | other |" of two sides' CPU seconds ({@link CpuUse}), in
   * {@code weir}'s order (a part as "… of which …").
   */
  public static void appendCpuRows(
      StringBuilder md, Map<String, Double> weir, Map<String, Double> other) {
    for (String process : weir.keySet()) {
      md.append(
          String.format(
              "| %s%s | %.1f | %.1f |%n",
              CpuUse.isPart(process) ? "… " : "",
              process,
              weir.get(process),
              other.getOrDefault(process, 0.0)));
    }
  }
}
