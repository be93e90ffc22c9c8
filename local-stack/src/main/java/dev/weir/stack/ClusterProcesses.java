package dev.weir.stack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The processes of a {@link FlinkCluster} as the JDK's tools see them (jcmd, the process table):
 * what tests ask of a process that its REST API does not say.
 */
public final class ClusterProcesses {

  private final Path dir;
  private final String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();

  ClusterProcesses(Path dir) {
    this.dir = dir;
  }

  /**
   * The TCP connections a process of the cluster ("jobmanager", "taskmanager-1", ...) holds open to
   * {@code port}: a job whose clients closed their channels leaves none behind.
   */
  public int connectionsTo(String process, int port) {
    return OsProcesses.readPid(dir.resolve(process + ".pid"))
        .map(pid -> OsProcesses.connectionsTo(pid, port))
        .orElse(0);
  }

  /** The names of the threads a process of the cluster runs now (read with the JDK's jcmd). */
  public List<String> threadNames(String process) {
    String pid =
        OsProcesses.readPid(dir.resolve(process + ".pid"))
            .map(String::valueOf)
            .orElseThrow(() -> new StackException("Flink " + process + " is not running"));
    return OsProcesses.capture(List.of(jcmd, pid, "Thread.print"))
        .lines()
        .filter(l -> l.startsWith("\""))
        .map(l -> l.substring(1, l.indexOf('"', 1)))
        .toList();
  }

  /**
   * How many class loaders of jobs each process of the cluster still holds, after a full garbage
   * collection (read with the JDK's jcmd). A job's class loader goes when the job has ended there;
   * one that stays leaks its classes, and enough of them end the process with "OutOfMemoryError:
   * Metaspace".
   */
  public Map<String, Integer> jobClassLoaders() throws IOException {
    Map<String, Integer> loaders = new LinkedHashMap<>();
    try (var files = Files.list(dir)) {
      for (Path pidFile : files.filter(p -> p.toString().endsWith(".pid")).sorted().toList()) {
        String pid = Files.readString(pidFile).trim();
        String process = pidFile.getFileName().toString().replace(".pid", "");
        if (ProcessHandle.of(Long.parseLong(pid)).filter(ProcessHandle::isAlive).isEmpty()) {
          throw new StackException(
              "Flink "
                  + process
                  + " (pid "
                  + pid
                  + ") is not running; the end of its log:\n"
                  + logTail(process, 40));
        }
        OsProcesses.capture(List.of(jcmd, pid, "GC.run"));
        long count =
            OsProcesses.capture(List.of(jcmd, pid, "VM.classloaders"))
                .lines()
                .filter(l -> l.contains("org.apache.flink.util.ChildFirstClassLoader"))
                .count();
        loaders.put(process, (int) count);
      }
    }
    return loaders;
  }

  private String logTail(String process, int lines) throws IOException {
    List<String> all = Files.readAllLines(dir.resolve(process + ".log"), StandardCharsets.UTF_8);
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
