package dev.weir.common.postgres;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets go of the JDBC drivers a job's class loader registered. Loading pgjdbc registers its driver
 * with the JVM-wide {@link DriverManager}, which then holds the job's class loader and every class
 * in it for as long as the process lives. On a session cluster each submission (its {@code main} in
 * the JobManager, its tasks in the TaskManagers) would leak tens of MB of metaspace until the
 * process dies of "OutOfMemoryError: Metaspace".
 */
public final class JdbcDrivers {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcDrivers.class);
  private static final String RELEASE_HOOK = "weir: deregister JDBC drivers";

  private JdbcDrivers() {}

  /** Deregisters the job's drivers when Flink releases the job's class loader in this process. */
  public static void deregisterOnRelease(RuntimeContext context) {
    context.registerUserCodeClassLoaderReleaseHookIfAbsent(RELEASE_HOOK, JdbcDrivers::deregister);
  }

  /** The same, for a sink writer (its init context's class loader). */
  public static void deregisterOnRelease(UserCodeClassLoader loader) {
    loader.registerReleaseHookIfAbsent(RELEASE_HOOK, JdbcDrivers::deregister);
  }

  /**
   * Deregisters the drivers loaded by weir's own class loader when that is a job's class loader
   * (Flink's user-code class loader); returns how many. Where weir runs on the application class
   * loader (a MiniCluster, the tests, the CLI) the drivers stay: other code in the process needs
   * them and nothing is unloaded anyway.
   */
  public static int deregister() {
    if (!JobClassLoader.owns(JdbcDrivers.class)) {
      return 0;
    }
    ClassLoader own = JdbcDrivers.class.getClassLoader();
    int deregistered = 0;
    for (Driver driver : Collections.list(DriverManager.getDrivers())) {
      if (driver.getClass().getClassLoader() == own) {
        try {
          DriverManager.deregisterDriver(driver);
          deregistered++;
        } catch (SQLException e) {
          // Only a caller of another class loader is refused; this one loaded the driver.
        }
      }
    }
    if (deregistered > 0) {
      LOG.info("deregistered {} JDBC driver(s) of the job's class loader {}", deregistered, own);
    }
    return deregistered;
  }
}
