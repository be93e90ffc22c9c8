package dev.weir.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a job's time goes, from a JDK Flight Recorder run around its benchmark (the MiniCluster
 * runs in this JVM): CPU samples grouped by thread (a Flink task thread is a stage of the job, its
 * chained operators), and the hottest methods of the busiest stage, each counted at the first frame
 * outside the JDK (the code that asked for the work).
 */
final class Profiles {

  /** The busiest stage of a run and where its samples fall. */
  record Profile(
      String job,
      long samples,
      String stage,
      long stageSamples,
      Map<String, Long> stageMethods,
      Map<String, Long> stageAreas) {}

  private Profiles() {}

  /** Runs {@code work} under a recording saved to {@code file}; returns its result and profile. */
  static <T> Map.Entry<T, Profile> record(String job, Path file, Callable<T> work)
      throws Exception {
    T result;
    try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
      recording.start();
      result = work.call();
      recording.stop();
      Files.createDirectories(file.getParent());
      recording.dump(file);
    }
    return Map.entry(result, read(job, file));
  }

  static Profile read(String job, Path file) throws IOException {
    Map<String, Long> byThread = new HashMap<>();
    Map<String, Map<String, Long>> methods = new HashMap<>();
    Map<String, Map<String, Long>> areas = new HashMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      String name = e.getThread("sampledThread").getJavaName();
      String thread = isTaskThread(name) ? stage(name) : NOT_A_STAGE;
      RecordedFrame frame = firstOutsideTheJdk(e.getStackTrace().getFrames());
      String type = frame == null ? "JDK" : frame.getMethod().getType().getName();
      String method =
          frame == null ? "(JDK only)" : shortName(type) + "." + frame.getMethod().getName();
      samples++;
      byThread.merge(thread, 1L, Long::sum);
      methods.computeIfAbsent(thread, t -> new HashMap<>()).merge(method, 1L, Long::sum);
      areas.computeIfAbsent(thread, t -> new HashMap<>()).merge(area(type), 1L, Long::sum);
    }
    String busiest =
        byThread.entrySet().stream()
            .filter(t -> !t.getKey().equals(NOT_A_STAGE))
            .max(Map.Entry.comparingByValue())
            .map(Map.Entry::getKey)
            .orElse("(no samples)");
    return new Profile(
        job,
        samples,
        busiest,
        byThread.getOrDefault(busiest, 0L),
        sorted(methods.getOrDefault(busiest, Map.of())),
        sorted(areas.getOrDefault(busiest, Map.of())));
  }

  /**
   * Where the samples of every other thread go: the benchmark's own (input generation, the naive
   * side), Flink's runtime, the clients' I/O threads. Never the busiest stage.
   */
  static final String NOT_A_STAGE = "(not a task thread)";

  /** A task thread's name ends with its subtask and attempt: "operators (subtask/n)#attempt". */
  private static final Pattern SUBTASK_SUFFIX = Pattern.compile(" \\(\\d+/\\d+\\)(#\\d+)?$");

  /**
   * Whether a thread runs one of a job's stages: Flink names it "operators (subtask/n)#attempt".
   */
  static boolean isTaskThread(String thread) {
    return thread != null && SUBTASK_SUFFIX.matcher(thread).find();
  }

  /** A task thread's name without its subtask and attempt: "collate -> store (1/2)#0" → stage. */
  private static String stage(String thread) {
    return thread == null ? "?" : SUBTASK_SUFFIX.matcher(thread).replaceFirst("");
  }

  private static RecordedFrame firstOutsideTheJdk(List<RecordedFrame> frames) {
    for (RecordedFrame f : frames) {
      String type = f.getMethod().getType().getName();
      if (!(type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun."))) {
        return f;
      }
    }
    return null;
  }

  private static String area(String type) {
    if (type.startsWith("dev.weir")) {
      return "weir";
    } else if (type.startsWith("org.apache.flink.shaded") || type.startsWith("org.apache.flink")) {
      return "Flink";
    } else if (type.startsWith("org.apache.kafka")) {
      return "Kafka client";
    } else if (type.startsWith("org.postgresql")) {
      return "PostgreSQL driver";
    } else if (type.startsWith("co.elastic")
        || type.startsWith("org.elasticsearch")
        || type.startsWith("org.apache.http")) {
      return "Elasticsearch client";
    } else if (type.startsWith("com.fasterxml") || type.startsWith("com.networknt")) {
      return "JSON (Jackson, schema validation)";
    } else if (type.startsWith("com.esotericsoftware")) {
      return "Kryo";
    }
    return type.equals("JDK") ? "JDK" : "other libraries";
  }

  private static String shortName(String type) {
    String[] parts = type.split("\\.");
    return parts.length <= 2 ? type : parts[parts.length - 2] + "." + parts[parts.length - 1];
  }

  private static Map<String, Long> sorted(Map<String, Long> counts) {
    return counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
  }
}
