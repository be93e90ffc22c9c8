package dev.weir.cli.bench;

import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * CPU time used over a timed window by each local service (its process tree) and by this JVM (the
 * benchmark's client or weir's job in its MiniCluster), from Linux's /proc: where a benchmark on a
 * shared machine spends its cores. Empty where there is no /proc.
 */
final class CpuUse {

  /** Linux reports process times in USER_HZ ticks, 100 per second on every mainstream platform. */
  private static final double TICKS_PER_SECOND = 100;

  static final String THIS_JVM = "benchmark JVM";

  private final Map<String, Long> roots = new LinkedHashMap<>();
  private final Map<String, Long> startTicks;

  private CpuUse(LocalStack stack) {
    for (LocalService service : stack.services()) {
      service.pid().ifPresent(pid -> roots.put(service.name(), pid));
    }
    roots.put(THIS_JVM, ProcessHandle.current().pid());
    startTicks = ticks();
  }

  /** Starts measuring now. */
  static CpuUse start(LocalStack stack) {
    return new CpuUse(stack);
  }

  /**
   * CPU seconds since {@link #start}, by process (insertion order: the services, then this JVM).
   */
  Map<String, Double> seconds() {
    Map<String, Long> now = ticks();
    Map<String, Double> seconds = new LinkedHashMap<>();
    startTicks.forEach(
        (name, start) -> {
          Long end = now.get(name);
          if (end != null) {
            seconds.put(name, (end - start) / TICKS_PER_SECOND);
          }
        });
    return seconds;
  }

  private Map<String, Long> ticks() {
    Map<String, Long> ticks = new LinkedHashMap<>();
    roots.forEach((name, pid) -> treeTicks(pid).ifPresent(t -> ticks.put(name, t)));
    return ticks;
  }

  /**
   * A process's user + system time, its live descendants' (PostgreSQL's backends), and what its
   * exited children left it (a backend that closed during the window).
   */
  private static Optional<Long> treeTicks(long pid) {
    Optional<long[]> root = stat(pid);
    if (root.isEmpty()) {
      return Optional.empty();
    }
    long total = root.get()[0] + root.get()[1];
    for (ProcessHandle child :
        ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(java.util.List.of())) {
      total += stat(child.pid()).map(t -> t[0]).orElse(0L);
    }
    return Optional.of(total);
  }

  /** {own user + system ticks, reaped children's user + system ticks} from /proc/pid/stat. */
  private static Optional<long[]> stat(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // Fields after the command name (which may hold spaces), from field 3 (state) on.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long own = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      long children = Long.parseLong(f[13]) + Long.parseLong(f[14]);
      return Optional.of(new long[] {own, children});
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // not Linux, or the process is gone
    }
  }
}
