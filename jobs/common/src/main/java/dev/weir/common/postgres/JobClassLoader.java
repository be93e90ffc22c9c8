package dev.weir.common.postgres;

import org.apache.flink.util.FlinkUserCodeClassLoader;

/** Which class loader a class came from, for clean-ups that must not reach beyond one job. */
public final class JobClassLoader {

  private JobClassLoader() {}

  /**
   * True when {@code type} was loaded by a job's own class loader (a submission to a cluster, which
   * Flink drops when the job ends there); false on the application class loader (a MiniCluster, the
   * tests, the CLI), which other jobs in the process share.
   */
  public static boolean owns(Class<?> type) {
    return type.getClassLoader() instanceof FlinkUserCodeClassLoader;
  }
}
