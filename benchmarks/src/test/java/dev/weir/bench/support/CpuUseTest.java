package dev.weir.bench.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.stack.LocalStack;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class CpuUseTest {

  @Test
  void countsTheCpuThisJvmUsed() {
    CpuUse cpu = CpuUse.start(LocalStack.fromEnvironment());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long until = threads.getCurrentThreadCpuTime() + 300_000_000L;
    long spins = 0;
    while (threads.getCurrentThreadCpuTime() < until) {
      spins++;
    }

    assertThat(spins).isPositive();
    // 300 ms of this thread's CPU, read back in 10 ms ticks.
    assertThat(cpu.seconds().get(CpuUse.THIS_JVM)).isGreaterThanOrEqualTo(0.28);
  }

  @Test
  void namesTheBusiestThreadAndCountsItsTime() throws Exception {
    CpuUse cpu = CpuUse.start(Map.of());
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch measured = new CountDownLatch(1);
    Thread spinner =
        new Thread(
            () -> {
              ThreadMXBean threads = ManagementFactory.getThreadMXBean();
              long until = threads.getCurrentThreadCpuTime() + 300_000_000L;
              while (threads.getCurrentThreadCpuTime() < until) {
                Thread.onSpinWait();
              }
              spun.countDown();
              try {
                measured.await(); // alive when read: an ended thread's time is gone from /proc
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "weir-spinner");
    spinner.start();
    spun.await();

    Map<String, Double> seconds = cpu.seconds();
    measured.countDown();
    spinner.join();
    assertThat(cpu.busiest().name()).isEqualTo("weir-spinner");
    assertThat(cpu.busiest().waitedForCoreSeconds()).isBetween(0.0, 30.0);
    assertThat(seconds.get(CpuUse.BUSIEST)).isGreaterThanOrEqualTo(0.28);
    assertThat(CpuUse.isPart(CpuUse.BUSIEST)).isTrue(); // counted in the JVM, not added to it
  }

  @Test
  void aServiceThisJvmStartedIsCountedAsTheServiceNotAgainInThisJvm() throws Exception {
    Process busy = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
    try {
      CpuUse cpu = CpuUse.start(Map.of("busy service", busy.pid()));
      // Until the child has had two seconds of CPU, however busy the machine is.
      Map<String, Double> seconds = cpu.seconds();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (seconds.get("busy service") < 2.0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
        seconds = cpu.seconds();
      }

      assertThat(seconds.get("busy service")).isGreaterThanOrEqualTo(2.0);
      // This JVM mostly slept: counted twice, it would show at least its descendant's seconds on
      // top of its own (JIT and polling, which a loaded machine stretches).
      assertThat(seconds.get(CpuUse.THIS_JVM)).isLessThan(seconds.get("busy service"));
    } finally {
      busy.destroyForcibly().waitFor();
    }
  }

  @Test
  void hotSpotsCompilerAndCollectorThreadsAreTheJvmsParts() {
    assertThat(CpuUse.partOf("C2 CompilerThre")).isEqualTo(CpuUse.JIT);
    assertThat(CpuUse.partOf("C1 CompilerThre")).isEqualTo(CpuUse.JIT);
    assertThat(CpuUse.partOf("GC Thread#1")).isEqualTo(CpuUse.GC);
    assertThat(CpuUse.partOf("G1 Conc#0")).isEqualTo(CpuUse.GC);
    assertThat(CpuUse.partOf("G1 Refine#0")).isEqualTo(CpuUse.GC);
    assertThat(CpuUse.partOf("main")).isNull();
    assertThat(CpuUse.partOf("join → document")).isNull();
    assertThat(CpuUse.isPart(CpuUse.JIT)).isTrue();
    assertThat(CpuUse.isPart(CpuUse.THIS_JVM)).isFalse();
  }

  @Test
  void collectionsAreCountedInTheGcPartAndAnApplicationThreadInNeither() {
    CpuUse cpu = CpuUse.start(LocalStack.fromEnvironment());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long until = threads.getCurrentThreadCpuTime() + 300_000_000L;
    while (threads.getCurrentThreadCpuTime() < until) {
      Thread.onSpinWait();
    }
    // Full collections that each mark a few hundred thousand live objects.
    List<int[]> live = new ArrayList<>();
    for (int i = 0; i < 400_000; i++) {
      live.add(new int[4]);
    }
    for (int i = 0; i < 10; i++) {
      System.gc();
    }
    assertThat(live).hasSize(400_000);

    Map<String, Double> seconds = cpu.seconds();
    assertThat(seconds.get(CpuUse.GC)).isPositive();
    assertThat(seconds.get(CpuUse.THIS_JVM) - seconds.get(CpuUse.GC) - seconds.get(CpuUse.JIT))
        .isGreaterThanOrEqualTo(0.28);
  }
}
