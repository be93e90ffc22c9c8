package dev.weir.stack;

import java.nio.file.Path;

/** One service of the local stack. */
public interface LocalService {

  /** A readable name, e.g. "PostgreSQL". */
  String name();

  /** Where clients connect. */
  String address();

  /** Whether something answers at {@link #address()} the way this service should. */
  boolean isUp();

  /** Fetches and starts the service unless it is up already; true when this call started it. */
  boolean start();

  /**
   * Stops the service this stack started from its folder (by pid file); a no-op when not running.
   */
  void stop();

  /** Where the service writes its log. */
  Path log();
}
