package dev.weir.bench.support;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.job.JobRunner;
import dev.weir.stack.LocalStack;
import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * What the steady-state benchmarks from Kafka share: the steady window of a side's progress, read
 * from its source operator's record counter, and the CPU each process used in it ({@link
 * SteadyStateTable} shows the sides).
 */
public final class SteadyState {

  /** The steady window: from this share of the input consumed ... */
  public static final double WINDOW_FROM = 0.3;

  /** ... to this one. */
  public static final double WINDOW_TO = 0.9;

  private static final Duration PATIENCE = Duration.ofMinutes(30);

  private SteadyState() {}

  /** One side, over its steady window. */
  public record Side(
      String name,
      long events,
      double seconds,
      Map<String, Double> cpuSeconds,
      CpuUse.Busiest busiest) {
    public double eventsPerSecond() {
      return events / seconds;
    }

    public double cpuPerThousand(String process) {
      return cpuSeconds.getOrDefault(process, 0.0) * 1000 / events;
    }

    /** Events per CPU-second of the benchmark's JVM (the job's, in its MiniCluster). */
    public double eventsPerJvmCpuSecond() {
      return events / cpuSeconds.getOrDefault(CpuUse.THIS_JVM, Double.NaN);
    }

    /** CPU microseconds per event of every process measured (the JVM's JIT and GC are in it). */
    public double cpuMicrosPerEvent() {
      return cpuSeconds.entrySet().stream()
              .filter(e -> !e.getKey().startsWith("of which"))
              .mapToDouble(Map.Entry::getValue)
              .sum()
          * 1e6
          / events;
    }

    /** CPU microseconds per event of the JVM's busiest thread ({@link CpuUse#BUSIEST}). */
    public double busiestThreadMicrosPerEvent() {
      return cpuSeconds.getOrDefault(CpuUse.BUSIEST, Double.NaN) * 1e6 / events;
    }

    /** The share of the window the busiest thread was on a core. */
    public double busiestThreadBusy() {
      return cpuSeconds.getOrDefault(CpuUse.BUSIEST, Double.NaN) / seconds;
    }

    /** The share of the window it was runnable but waiting for a core. */
    public double busiestThreadWaitingForCore() {
      return busiest == null ? Double.NaN : busiest.waitedForCoreSeconds() / seconds;
    }

    public String busiestThread() {
      return busiest == null ? "?" : busiest.name();
    }

    /** How busy {@code cores} were over the window, from the processes measured. */
    public double busyShare(int cores) {
      return cpuMicrosPerEvent() * events / 1e6 / (seconds * cores);
    }
  }

  /** How a job reads its topic: its source and decoding, with the given dead-letter output. */
  public interface JobInput<T> {
    DataStream<T> read(StreamExecutionEnvironment env, DeadLetters dlq);
  }

  /**
   * The decode-and-discard limit: a job that reads its topic as {@code input} does, then drops each
   * event.
   */
  public static <T> JobClient startDiscarding(WeirConfig config, String name, JobInput<T> input)
      throws Exception {
    StreamExecutionEnvironment env = BenchEnvironment.miniClusterAsDeployed();
    JobRunner.configure(env, config);
    // A consumer group of its own, so that it reads the topic from the beginning.
    DeadLetters dlq = new DeadLetters("bench-" + name + "-" + System.nanoTime());
    input
        .read(env, dlq)
        .sinkTo(new DiscardingSink<>())
        .uid("bench-" + name + "-discard")
        .name("discard");
    return env.executeAsync("bench " + name);
  }

  /** Starts a job. */
  public interface JobStart {
    JobClient start() throws Exception;
  }

  /** What to do with a job once its window is measured, before it is cancelled. */
  public interface AfterWindow {
    void run(JobClient job) throws Exception;
  }

  /**
   * Runs a job over the topic and measures its steady window by its source operator's record
   * counter; the job is cancelled afterwards.
   */
  public static Side measureJob(
      LocalStack stack, String name, String topic, long events, JobStart start) throws Exception {
    return measureJob(stack, name, topic, events, start, job -> {});
  }

  /** The same, running {@code after} between the window and the cancellation. */
  public static Side measureJob(
      LocalStack stack, String name, String topic, long events, JobStart start, AfterWindow after)
      throws Exception {
    SourceProgress.reset();
    JobClient job = start.start();
    long started = System.nanoTime();
    String source = sourceName(topic);
    try {
      Side side =
          window(
              stack,
              name,
              events,
              () -> {
                if (!SourceProgress.operators().contains(source)
                    && System.nanoTime() - started > Duration.ofMinutes(2).toNanos()) {
                  throw new IllegalStateException(
                      "no record counter of the operator "
                          + source
                          + " after 2 minutes; counted: "
                          + SourceProgress.operators());
                }
                return SourceProgress.emitted(source);
              });
      after.run(job);
      return side;
    } finally {
      job.cancel().get();
      SourceProgress.reset();
    }
  }

  /** How Flink names a Kafka source operator of weir's in its metrics: by its topic. */
  public static String sourceName(String topic) {
    return "Source: " + topic;
  }

  /** Waits for the steady window of a side's progress and measures it. */
  public static Side window(LocalStack stack, String name, long events, LongSupplier progress)
      throws Exception {
    long from = (long) (events * WINDOW_FROM);
    long to = (long) (events * WINDOW_TO);
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    long n0 = -1;
    long t0 = 0;
    CpuUse cpu = null;
    while (System.nanoTime() < deadline) {
      long n = progress.getAsLong();
      long t = System.nanoTime();
      if (cpu == null && n >= from) {
        cpu = CpuUse.start(stack);
        n0 = n;
        t0 = t;
      } else if (cpu != null && n >= to) {
        Map<String, Double> seconds = cpu.seconds();
        Side side = new Side(name, n - n0, (t - t0) / 1e9, seconds, cpu.busiest());
        System.out.printf(
            "%s: %,.0f events/s over %,d events (%.1f s); busiest thread '%s' on a core %.2f,"
                + " waiting for one %.2f of the window%n",
            name,
            side.eventsPerSecond(),
            side.events(),
            side.seconds(),
            side.busiestThread(),
            side.busiestThreadBusy(),
            side.busiestThreadWaitingForCore());
        return side;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException(name + " did not consume " + to + " events within " + PATIENCE);
  }

  /** Waits until {@code progress} reaches {@code events}. */
  public static void awaitAll(String name, long events, LongSupplier progress) throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (progress.getAsLong() < events) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(name + " did not consume " + events + " in " + PATIENCE);
      }
      Thread.sleep(50);
    }
  }
}
