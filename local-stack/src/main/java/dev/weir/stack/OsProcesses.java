package dev.weir.stack;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Starting, waiting for and stopping the service processes. PostgreSQL and Elasticsearch refuse to
 * run as root: when we are root they run as an unprivileged user (setpriv, no PAM involved) that
 * owns their folders.
 */
final class OsProcesses {

  private final String serviceUser;
  private Integer uid;
  private Integer gid;

  OsProcesses(String serviceUser) {
    this.serviceUser = serviceUser;
  }

  static boolean runningAsRoot() {
    try {
      return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
    } catch (IOException | UnsupportedOperationException e) {
      return "root".equals(System.getProperty("user.name"));
    }
  }

  /** The command, prefixed so that it runs as the service user when we are root. */
  List<String> unprivileged(List<String> command) {
    if (!runningAsRoot()) {
      return command;
    }
    resolveUser();
    List<String> wrapped =
        new ArrayList<>(
            List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--"));
    wrapped.addAll(command);
    return wrapped;
  }

  /** Gives a folder (recursively) to the service user when we are root; no-op otherwise. */
  void ownByServiceUser(Path folder) {
    if (!runningAsRoot()) {
      return;
    }
    resolveUser();
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot give " + folder + " to user " + serviceUser, e);
    }
    // The user must be able to reach the folder: every parent needs the search (x) bit for others.
    for (Path p = folder.getParent(); p != null; p = p.getParent()) {
      try {
        String perms = PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
        if (perms.charAt(8) != 'x') {
          throw new StackException(
              "user "
                  + serviceUser
                  + " cannot reach "
                  + folder
                  + ": "
                  + p
                  + " is "
                  + perms
                  + " (needs o+x); set WEIR_HOME to a folder it can reach");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private synchronized void resolveUser() {
    if (uid != null) {
      return;
    }
    uid = Integer.parseInt(capture(List.of("id", "-u", serviceUser)).trim());
    gid = Integer.parseInt(capture(List.of("id", "-g", serviceUser)).trim());
  }

  /** Starts a long-running process in its own session, output appended to the log. */
  static Process startDetached(
      List<String> command, Path workDir, Map<String, String> env, Path log) {
    List<String> detached = new ArrayList<>(List.of("setsid"));
    detached.addAll(command);
    ProcessBuilder builder =
        new ProcessBuilder(detached)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(env);
    try {
      return builder.start();
    } catch (IOException e) {
      throw new StackException("cannot start " + command.get(0) + "; log: " + log, e);
    }
  }

  /** Runs a command to completion, output appended to the log; fails clearly on a non-zero exit. */
  static void run(
      String service,
      List<String> command,
      Path workDir,
      Map<String, String> env,
      Path log,
      Duration timeout) {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(env);
    try {
      Process process = builder.start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new StackException(
            service
                + ": '"
                + String.join(" ", command)
                + "' did not finish within "
                + timeout.toSeconds()
                + " s; log: "
                + log);
      }
      if (process.exitValue() != 0) {
        throw new StackException(
            service
                + ": '"
                + String.join(" ", command)
                + "' failed with exit code "
                + process.exitValue()
                + "; log: "
                + log);
      }
    } catch (IOException e) {
      throw new StackException(service + ": cannot run " + command.get(0) + "; log: " + log, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException(service + ": interrupted", e);
    }
  }

  static String capture(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (process.waitFor() != 0) {
        throw new StackException("'" + String.join(" ", command) + "' failed: " + out.trim());
      }
      return out;
    } catch (IOException e) {
      throw new StackException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted", e);
    }
  }

  /**
   * Polls until ready, or fails naming the service, the time waited and the log. Gives up early
   * when the process it started has already died.
   */
  static void awaitReady(
      String service,
      Duration timeout,
      Path log,
      Optional<ProcessHandle> process,
      BooleanSupplier ready) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (ready.getAsBoolean()) {
        return;
      }
      if (process.isPresent() && !process.get().isAlive()) {
        throw new StackException(
            service + " exited during start-up after " + seconds(start) + "; log: " + log);
      }
      sleep(Duration.ofMillis(250));
    }
    throw new StackException(
        service + " was not ready after waiting " + seconds(start) + "; log: " + log);
  }

  static boolean portOpen(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(StackSettings.HOST, port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whether the socket listening on TCP {@code port} belongs to process {@code pid} or one of its
   * descendants, from Linux's /proc (the listening socket's inode in /proc/net/tcp[6] among the
   * processes' open files). Empty where /proc cannot tell: not Linux, no listener seen in this
   * network namespace, or a process whose open files we may not read.
   */
  static Optional<Boolean> listensOn(long pid, int port) {
    Set<String> sockets = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      sockets.addAll(listeningSockets(Path.of(table), port));
    }
    Optional<ProcessHandle> root = ProcessHandle.of(pid);
    if (sockets.isEmpty() || root.isEmpty()) {
      return Optional.empty();
    }
    List<ProcessHandle> tree = new ArrayList<>(List.of(root.get()));
    tree.addAll(root.get().descendants().toList());
    for (ProcessHandle process : tree) {
      try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
        for (Path fd : (Iterable<Path>) fds::iterator) {
          try {
            if (sockets.contains(Files.readSymbolicLink(fd).toString())) {
              return Optional.of(true);
            }
          } catch (IOException closed) {
            // closed since it was listed
          }
        }
      } catch (IOException | SecurityException e) {
        return Optional.empty(); // another user's process, or it ended
      }
    }
    return Optional.of(false);
  }

  /**
   * "socket:[inode]" of the sockets in LISTEN state (st 0A) on {@code port} in a /proc/net/tcp
   * table, whose rows read "sl local_address(hex ip:hex port) rem_address st … uid timeout inode".
   */
  static Set<String> listeningSockets(Path table, int port) {
    return sockets(table, 1, port, "0A");
  }

  /**
   * How many TCP connections process {@code pid} and its descendants hold open to {@code port}
   * (ESTABLISHED, st 01, with that remote port), from Linux's /proc; 0 where /proc cannot tell.
   */
  static int connectionsTo(long pid, int port) {
    Set<String> sockets = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      sockets.addAll(sockets(Path.of(table), 2, port, "01"));
    }
    int open = 0;
    List<ProcessHandle> tree = new ArrayList<>();
    ProcessHandle.of(pid)
        .ifPresent(
            root -> {
              tree.add(root);
              tree.addAll(root.descendants().toList());
            });
    for (ProcessHandle process : tree) {
      try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
        for (Path fd : (Iterable<Path>) fds::iterator) {
          try {
            if (sockets.contains(Files.readSymbolicLink(fd).toString())) {
              open++;
            }
          } catch (IOException closed) {
            // closed since it was listed
          }
        }
      } catch (IOException | SecurityException e) {
        // it ended, or it is another user's
      }
    }
    return open;
  }

  /**
   * The sockets of a /proc/net/tcp table in {@code state} whose address in column {@code column}
   * has {@code port}.
   */
  private static Set<String> sockets(Path table, int column, int port, String state) {
    Set<String> sockets = new HashSet<>();
    List<String> rows;
    try {
      rows = Files.readAllLines(table);
    } catch (IOException e) {
      return sockets;
    }
    String hexPort = String.format(":%04X", port);
    for (String row : rows.subList(Math.min(1, rows.size()), rows.size())) {
      String[] f = row.trim().split("\\s+");
      if (f.length > 9 && f[column].endsWith(hexPort) && f[3].equals(state)) {
        sockets.add("socket:[" + f[9] + "]");
      }
    }
    return sockets;
  }

  /** TERM, then KILL after the grace period; true when it is gone. */
  static boolean stop(long pid, Duration grace) {
    Optional<ProcessHandle> handle = ProcessHandle.of(pid);
    if (handle.isEmpty()) {
      return true;
    }
    // Stop the whole process tree: launchers (setsid, setpriv, shell wrappers) may sit on top.
    List<ProcessHandle> tree = new ArrayList<>(handle.get().descendants().toList());
    tree.add(0, handle.get());
    tree.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + grace.toNanos();
    while (System.nanoTime() < deadline && tree.stream().anyMatch(ProcessHandle::isAlive)) {
      sleep(Duration.ofMillis(200));
    }
    tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    return tree.stream().noneMatch(ProcessHandle::isAlive);
  }

  /** Sends a signal (e.g. STOP, CONT) to a process and all its descendants. */
  static void signalTree(long pid, String signal) {
    ProcessHandle root =
        ProcessHandle.of(pid).orElseThrow(() -> new StackException("no process " + pid));
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    command.add(Long.toString(pid));
    root.descendants().forEach(p -> command.add(Long.toString(p.pid())));
    capture(command);
  }

  /**
   * Restricts a process, its descendants and all their threads to the given CPUs (a taskset list,
   * e.g. "0" or "1-3"); what they start later inherits it. Linux only.
   */
  static void pinTree(long pid, String cpus) {
    ProcessHandle root =
        ProcessHandle.of(pid).orElseThrow(() -> new StackException("no process " + pid));
    List<ProcessHandle> tree = new ArrayList<>(root.descendants().toList());
    tree.add(0, root);
    for (ProcessHandle p : tree) {
      capture(
          List.of("taskset", "--all-tasks", "--cpu-list", "--pid", cpus, Long.toString(p.pid())));
    }
  }

  static Optional<Long> readPid(Path pidFile) {
    try {
      if (!Files.exists(pidFile)) {
        return Optional.empty();
      }
      String text = Files.readString(pidFile).trim();
      if (text.isEmpty()) {
        return Optional.empty();
      }
      long pid = Long.parseLong(text.lines().findFirst().orElseThrow().trim());
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ProcessHandle::pid);
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted", e);
    }
  }

  private static String seconds(long startNanos) {
    return String.format("%.1f s", (System.nanoTime() - startNanos) / 1e9);
  }
}
