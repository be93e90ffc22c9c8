package dev.weir.bench;

import java.time.Instant;

/** What every results file starts with: the title, the command that regenerates it, when, where. */
final class BenchReport {

  private BenchReport() {}

  /** "# title", the command, and "Measured: <now>, <cores> cores, " for the caller to go on. */
  static StringBuilder header(String title, String command) {
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
}
