package dev.weir.bench;

import dev.weir.cli.WeirCli;
import picocli.CommandLine;

/**
 * {@code bin/weir bench ...}: the benchmarks run from this module's class path, so that the {@code
 * weir} command-line tool ships no benchmark harness.
 */
public final class BenchMain {

  public static void main(String[] args) {
    CommandLine bench = WeirCli.commandLine(new BenchCommand());
    bench.setCommandName("weir bench");
    System.exit(bench.execute(args));
  }

  private BenchMain() {}
}
