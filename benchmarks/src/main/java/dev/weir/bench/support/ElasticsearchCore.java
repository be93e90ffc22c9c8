package dev.weir.bench.support;

import dev.weir.stack.CpuAffinity;
import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import java.util.concurrent.Callable;

/**
 * Elasticsearch on core 0 and everything else (the other services, this JVM: weir's job in its
 * MiniCluster or a bulk client) on the rest, as with nodes of its own: what a step costs when the
 * job's work does not take Elasticsearch's CPU.
 */
public final class ElasticsearchCore {

  private ElasticsearchCore() {}

  /** Whether this machine can separate them: two cores at least, and Linux's taskset. */
  public static boolean possible() {
    return Runtime.getRuntime().availableProcessors() >= 2 && CpuAffinity.available();
  }

  /**
   * Runs {@code step} with Elasticsearch on a core of its own; every process on all cores after.
   */
  public static <T> T run(LocalStack stack, Callable<T> step) throws Exception {
    String rest = "1-" + (Runtime.getRuntime().availableProcessors() - 1);
    String all = CpuAffinity.all();
    LocalService elasticsearch = stack.elasticsearch();
    try {
      elasticsearch.pinToCpus("0");
      for (LocalService service : stack.services()) {
        if (service != elasticsearch) {
          service.pinToCpus(rest);
        }
      }
      CpuAffinity.pin(ProcessHandle.current().pid(), rest);
      return step.call();
    } finally {
      for (LocalService service : stack.services()) {
        service.pinToCpus(all);
      }
      CpuAffinity.pin(ProcessHandle.current().pid(), all);
    }
  }
}
