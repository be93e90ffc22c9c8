package dev.weir.stack;

import java.nio.file.Path;
import java.util.Optional;

/** One service of the local stack. */
public interface LocalService {

  /** A readable name, e.g. "PostgreSQL". */
  String name();

  /** Where clients connect. */
  String address();

  /** The TCP port clients connect to. */
  int port();

  /** Whether something answers at {@link #address()} the way this service should. */
  boolean isUp();

  /**
   * Whether the process this stack started for the service (its pid file) listens on {@link
   * #port()}; where /proc cannot tell (not Linux), whether that process is alive.
   */
  default boolean holdsItsPort() {
    return pid().map(p -> OsProcesses.listensOn(p, port()).orElse(true)).orElse(false);
  }

  /**
   * Whether a process this stack did not start holds {@link #port()}: the service is down, and
   * {@link #start()} fails until that process is gone or the port is changed.
   */
  default boolean portTaken() {
    return OsProcesses.portOpen(port()) && !holdsItsPort();
  }

  /** Fetches and starts the service unless it is up already; true when this call started it. */
  boolean start();

  /**
   * Stops the service this stack started from its folder (by pid file); a no-op when not running.
   */
  void stop();

  /** Where the service writes its log. */
  Path log();

  /** The process this stack started for the service, while it runs. */
  Optional<Long> pid();

  /**
   * Suspends the service's processes (SIGSTOP): connections stay open and nothing answers, as when
   * a host stops responding, which clients see as timeouts rather than refused connections.
   */
  default void freeze() {
    OsProcesses.signalTree(pid().orElseThrow(() -> notRunning()), "STOP");
  }

  /** Resumes what {@link #freeze()} suspended. */
  default void thaw() {
    OsProcesses.signalTree(pid().orElseThrow(() -> notRunning()), "CONT");
  }

  /**
   * Runs the service's processes only on the given CPUs (a taskset list such as "0" or "1-3"), as
   * if it had a machine of its own; "0-N" gives them all back. Linux only.
   */
  default void pinToCpus(String cpus) {
    CpuAffinity.pin(pid().orElseThrow(() -> notRunning()), cpus);
  }

  private StackException notRunning() {
    return new StackException(name() + " was not started by this stack, or is not running");
  }
}
