package dev.weir.bench.support;

import dev.weir.bench.support.SteadyState.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The sides of a steady-state benchmark as a Markdown table. */
public final class SteadyStateTable {

  private SteadyStateTable() {}

  /**
   * The sides as a Markdown table: events/s, the ratio to each limit (by its column title), the CPU
   * seconds per 1,000 events of each process.
   */
  public static String of(List<Side> sides, Map<String, Side> limits) {
    List<String> processes = new ArrayList<>();
    for (Side s : sides) {
      s.cpuSeconds().keySet().stream().filter(p -> !processes.contains(p)).forEach(processes::add);
    }
    StringBuilder md = new StringBuilder("| side | events/s | window (s) |");
    limits.keySet().forEach(l -> md.append(" ").append(l).append(" |"));
    processes.forEach(p -> md.append(" CPU s / 1,000 events: ").append(p).append(" |"));
    md.append("\n|---|---:|---:|");
    limits.keySet().forEach(l -> md.append("---:|"));
    processes.forEach(p -> md.append("---:|"));
    md.append('\n');
    for (Side s : sides) {
      md.append(String.format("| %s | %,.0f | %.1f |", s.name(), s.eventsPerSecond(), s.seconds()));
      limits
          .values()
          .forEach(
              l -> md.append(String.format(" %.2f |", s.eventsPerSecond() / l.eventsPerSecond())));
      processes.forEach(p -> md.append(String.format(" %.3f |", s.cpuPerThousand(p))));
      md.append('\n');
    }
    List<String> shortWindows =
        sides.stream().filter(s -> s.seconds() < MIN_WINDOW_SECONDS).map(Side::name).toList();
    if (!shortWindows.isEmpty()) {
      md.append(
          String.format(
              "%nThe window of %s lasted under %.0f s: a rate over so short a stretch is a rough"
                  + " one (a larger input, `--events`, lengthens it).%n",
              String.join(", ", shortWindows), MIN_WINDOW_SECONDS));
    }
    return md.toString();
  }

  /** A steady window shorter than this is reported as rough. */
  static final double MIN_WINDOW_SECONDS = 5;
}
