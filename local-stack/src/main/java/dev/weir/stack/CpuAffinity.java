package dev.weir.stack;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Which CPUs a process may run on (Linux's taskset): benchmarks give a service cores of its own, as
 * if it had a machine of its own.
 */
public final class CpuAffinity {

  private CpuAffinity() {}

  /**
   * Restricts a process, its descendants and all their threads to {@code cpus} (a taskset list,
   * e.g. "0" or "1-3"); threads and processes they start later inherit it.
   */
  public static void pin(long pid, String cpus) {
    OsProcesses.pinTree(pid, cpus);
  }

  /** Whether processes can be pinned here: Linux's taskset is on the PATH. */
  public static boolean available() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Arrays.stream(path.split(File.pathSeparator))
        .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, "taskset")));
  }

  /** Every CPU of this machine, as a taskset list. */
  public static String all() {
    return "0-" + (Runtime.getRuntime().availableProcessors() - 1);
  }
}
