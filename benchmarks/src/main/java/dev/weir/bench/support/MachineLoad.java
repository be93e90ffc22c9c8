package dev.weir.bench.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the whole machine was over a run, whoever used it (Linux /proc): the 1-minute load
 * average at the start and its peak (sampled every 10 s), and the CPU seconds every process of the
 * machine used. Against {@link CpuUse}'s seconds of the processes a benchmark measures, it tells
 * how much of the cores other work took: on a shared machine the absolute rates move with it, the
 * ratios of sides measured under the same load less so.
 */
public final class MachineLoad implements AutoCloseable {

  /** Linux reports CPU times in USER_HZ ticks, 100 per second on every mainstream platform. */
  private static final double TICKS_PER_SECOND = 100;

  private final long startNanos = System.nanoTime();
  private final double firstLoad = loadAverage();
  private final double startBusyTicks = busyTicks();
  private volatile double highestLoad = firstLoad;
  private final Thread sampler =
      new Thread(
          () -> {
            try {
              while (true) {
                Thread.sleep(10_000);
                highestLoad = Math.max(highestLoad, loadAverage());
              }
            } catch (InterruptedException e) {
              // closed
            }
          },
          "machine-load");

  /**
   * @param busyCpuSeconds CPU seconds every process of the machine used over the window
   * @param seconds the window's length
   */
  public record Summary(
      double loadAtStart, double loadHighest, double busyCpuSeconds, double seconds) {

    /** The share of all cores' time the machine was busy over the window. */
    public double busyShare(int cores) {
      return busyCpuSeconds / (seconds * cores);
    }
  }

  private MachineLoad() {
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Starts watching now. */
  public static MachineLoad start() {
    return new MachineLoad();
  }

  /** The machine's load from the start until now. */
  public Summary summary() {
    return new Summary(
        firstLoad,
        Math.max(highestLoad, loadAverage()),
        (busyTicks() - startBusyTicks) / TICKS_PER_SECOND,
        (System.nanoTime() - startNanos) / 1e9);
  }

  @Override
  public void close() {
    sampler.interrupt();
  }

  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** user + nice + system + irq + softirq + steal ticks of every core, from /proc/stat. */
  private static double busyTicks() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      return Long.parseLong(f[1])
          + Long.parseLong(f[2])
          + Long.parseLong(f[3])
          + Long.parseLong(f[6])
          + Long.parseLong(f[7])
          + Long.parseLong(f[8]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
