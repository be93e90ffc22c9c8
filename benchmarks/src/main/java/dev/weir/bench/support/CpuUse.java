package dev.weir.bench.support;

import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * CPU time used over a timed window by each local service (its process tree) and by this JVM (the
 * benchmark's client or weir's job in its MiniCluster), from Linux's /proc: where a benchmark on a
 * shared machine spends its cores. Empty where there is no /proc.
 */
public final class CpuUse {

  /** Linux reports process times in USER_HZ ticks, 100 per second on every mainstream platform. */
  private static final double TICKS_PER_SECOND = 100;

  public static final String THIS_JVM = "benchmark JVM";

  /** Elasticsearch's name among the processes (the local stack's service name). */
  public static final String ELASTICSEARCH = "Elasticsearch";

  /**
   * Parts of this JVM's time, listed after it and already counted in it: HotSpot's JIT compiler
   * threads and its G1 collector threads, told apart by their thread names.
   */
  public static final String JIT = "of which the JIT compiler";

  public static final String GC = "of which garbage collection";

  /**
   * The most time any other one thread of this JVM used: at parallelism 1 a job's operator chain
   * runs on one thread, whose CPU per event bounds the job's rate whatever the other cores do.
   */
  static final String BUSIEST = "of which its busiest thread";

  /**
   * The busiest thread over the window: its Linux name, and how long it was runnable but waiting
   * for a core (the scheduler's run-queue time, /proc/.../schedstat): time it lost to the other
   * threads and processes on the machine's cores, not to waiting for work or locks.
   */
  public record Busiest(String name, double waitedForCoreSeconds) {}

  private Busiest busiest;

  private final Map<Long, Long> startRunQueueNanos;

  private final Map<String, Long> roots = new LinkedHashMap<>();
  private final Map<String, Long> startTicks;
  private final Map<Long, Long> startThreadTicks;

  private CpuUse(Map<String, Long> processes) {
    roots.putAll(processes);
    roots.put(THIS_JVM, ProcessHandle.current().pid());
    startTicks = ticks();
    startThreadTicks = threadTicks();
    startRunQueueNanos = runQueueNanos();
  }

  /** Starts measuring now: the stack's services and this JVM. */
  public static CpuUse start(LocalStack stack) {
    Map<String, Long> services = new LinkedHashMap<>();
    for (LocalService service : stack.services()) {
      // The search engine under one name whichever it is (OpenSearch's service is named so): the
      // reports read its CPU by that name.
      String name = service == stack.elasticsearch() ? ELASTICSEARCH : service.name();
      service.pid().ifPresent(pid -> services.put(name, pid));
    }
    return new CpuUse(services);
  }

  /** Starts measuring the same processes again, from now. */
  public CpuUse restart() {
    Map<String, Long> processes = new LinkedHashMap<>(roots);
    processes.remove(THIS_JVM);
    return new CpuUse(processes);
  }

  /** Starts measuring now: these processes (by name) and this JVM. */
  public static CpuUse start(Map<String, Long> processes) {
    return new CpuUse(processes);
  }

  /**
   * CPU seconds since {@link #start}, by process (insertion order: the services, then this JVM and
   * its {@link #isPart parts}).
   */
  public Map<String, Double> seconds() {
    Map<String, Long> now = ticks();
    Map<Long, Long> threadsNow = threadTicks();
    Map<String, Double> seconds = new LinkedHashMap<>();
    startTicks.forEach(
        (name, start) -> {
          Long end = now.get(name);
          if (end != null) {
            seconds.put(name, (end - start) / TICKS_PER_SECOND);
          }
        });
    if (seconds.containsKey(THIS_JVM)) {
      Map<String, Long> partTicks = new LinkedHashMap<>(Map.of(JIT, 0L, GC, 0L, BUSIEST, 0L));
      long[] busiestTid = {-1};
      threadsNow.forEach(
          (tid, ticks) -> {
            String part = partOf(threadName(tid));
            long used = ticks - startThreadTicks.getOrDefault(tid, 0L);
            if (part != null) {
              partTicks.merge(part, used, Long::sum);
            } else if (used > partTicks.get(BUSIEST)) {
              partTicks.put(BUSIEST, used);
              busiestTid[0] = tid;
            }
          });
      if (busiestTid[0] >= 0) {
        long tid = busiestTid[0];
        long waited = runQueueNanos(tid).orElse(0L) - startRunQueueNanos.getOrDefault(tid, 0L);
        busiest = new Busiest(threadName(tid), waited / 1e9);
      }
      for (String part : List.of(JIT, GC, BUSIEST)) {
        seconds.put(part, partTicks.get(part) / TICKS_PER_SECOND);
      }
    }
    return seconds;
  }

  /** The CPU seconds of every process in {@code cpu}, its parts not counted twice. */
  public static double total(Map<String, Double> cpu) {
    return cpu.entrySet().stream()
        .filter(e -> !isPart(e.getKey()))
        .mapToDouble(Map.Entry::getValue)
        .sum();
  }

  /** Whether {@code name} is a part of a process already counted in it (not to be added up). */
  static boolean isPart(String name) {
    return name.equals(JIT) || name.equals(GC) || name.equals(BUSIEST);
  }

  /** The {@link #BUSIEST} thread at the last {@link #seconds}; null where unknown. */
  Busiest busiest() {
    return busiest;
  }

  /** Run-queue nanoseconds of this JVM's threads by thread id (see {@link Busiest}). */
  private static Map<Long, Long> runQueueNanos() {
    return perThread(CpuUse::runQueueNanos);
  }

  /** The second field of /proc/self/task/tid/schedstat: time spent waiting on a run queue. */
  private static Optional<Long> runQueueNanos(long tid) {
    try {
      String[] f =
          Files.readString(Path.of("/proc/self/task", Long.toString(tid), "schedstat"))
              .trim()
              .split(" ");
      return Optional.of(Long.parseLong(f[1]));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The part a HotSpot thread belongs to by its Linux name (15 characters at most): "C2
   * CompilerThre", "C1 CompilerThre"; "GC Thread#0", "G1 Conc#0", "G1 Refine#0", "G1 Main Marker",
   * "G1 Service". Null for any other thread.
   */
  static String partOf(String threadName) {
    if (threadName == null) {
      return null;
    }
    if (threadName.matches("C[12] CompilerThre.*")) {
      return JIT;
    }
    if (threadName.startsWith("GC Thread") || threadName.startsWith("G1 ")) {
      return GC;
    }
    return null;
  }

  /**
   * User + system ticks of this JVM's threads by thread id. A thread that ends within the window
   * (HotSpot stops idle compiler threads) takes its time with it: the parts are a lower bound.
   */
  private static Map<Long, Long> threadTicks() {
    return perThread(tid -> stat(Path.of("/proc/self/task", Long.toString(tid))).map(t -> t[0]));
  }

  /** A value of each of this JVM's threads (from /proc/self/task), by thread id; none if absent. */
  private static Map<Long, Long> perThread(Function<Long, Optional<Long>> valueOf) {
    Map<Long, Long> values = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      tasks.forEach(
          task -> {
            long tid = Long.parseLong(task.getFileName().toString());
            valueOf.apply(tid).ifPresent(v -> values.put(tid, v));
          });
    } catch (IOException | RuntimeException e) {
      // not Linux: no parts
    }
    return values;
  }

  private static String threadName(long tid) {
    try {
      return Files.readString(Path.of("/proc/self/task", Long.toString(tid), "comm")).trim();
    } catch (IOException e) {
      return null;
    }
  }

  private Map<String, Long> ticks() {
    Map<String, Long> ticks = new LinkedHashMap<>();
    roots.forEach(
        (name, pid) -> {
          // A service this JVM started (bench all on a stack that was down) is its descendant:
          // counted as the service, not again in this JVM's tree.
          Set<Long> others = new HashSet<>();
          roots.forEach(
              (other, otherPid) -> {
                if (!otherPid.equals(pid)) {
                  others.add(otherPid);
                  ProcessHandle.of(otherPid)
                      .ifPresent(p -> p.descendants().forEach(d -> others.add(d.pid())));
                }
              });
          treeTicks(pid, others).ifPresent(t -> ticks.put(name, t));
        });
    return ticks;
  }

  /**
   * A process's user + system time, its live descendants' (PostgreSQL's backends) but those in
   * {@code excluded}, and what its exited children left it (a backend that closed during the
   * window).
   */
  private static Optional<Long> treeTicks(long pid, Set<Long> excluded) {
    Optional<long[]> root = stat(pid);
    if (root.isEmpty()) {
      return Optional.empty();
    }
    long total = root.get()[0] + root.get()[1];
    for (ProcessHandle child :
        ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(List.of())) {
      if (!excluded.contains(child.pid())) {
        total += stat(child.pid()).map(t -> t[0]).orElse(0L);
      }
    }
    return Optional.of(total);
  }

  /** {own user + system ticks, reaped children's user + system ticks} from /proc/pid/stat. */
  private static Optional<long[]> stat(long pid) {
    return stat(Path.of("/proc", Long.toString(pid)));
  }

  /** The same for a /proc folder of a process or of one of its threads (/proc/self/task/tid). */
  private static Optional<long[]> stat(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
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
