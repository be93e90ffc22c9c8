package dev.weir.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.stack.LocalStack;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
}
