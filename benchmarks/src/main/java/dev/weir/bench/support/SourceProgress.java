package dev.weir.bench.support;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * How many records each source of a job running in this JVM's MiniCluster has emitted, read from
 * the source operators' own {@code numRecordsOut} counters: progress is measured without adding an
 * operator to the graph being measured. A Flink metric reporter, registered in the MiniCluster's
 * configuration by {@link #register}.
 */
public final class SourceProgress implements MetricReporter {

  /** Counters by operator name (a source's name is its topic in weir's jobs). */
  private static final Map<String, List<Counter>> COUNTERS = new ConcurrentHashMap<>();

  /** A job's own counters that a benchmark reports, by metric name (every subtask's). */
  private static final Map<String, List<Counter>> JOB_COUNTERS = new ConcurrentHashMap<>();

  private static final Set<String> JOB_COUNTER_NAMES = Set.of("weirCacheHits", "weirCacheMisses");

  /** Adds this reporter to a MiniCluster's configuration. */
  static void register(Configuration conf) {
    conf.setString("metrics.reporter.progress.factory.class", Factory.class.getName());
  }

  /** Records emitted so far by every subtask of the operator named {@code operator}. */
  public static long emitted(String operator) {
    return COUNTERS.getOrDefault(operator, List.of()).stream().mapToLong(Counter::getCount).sum();
  }

  /** The operators counted so far. */
  static Set<String> operators() {
    return COUNTERS.keySet();
  }

  /** The sum of the job's counters named {@code metric} (weirCacheHits, weirCacheMisses). */
  public static long counted(String metric) {
    return JOB_COUNTERS.getOrDefault(metric, List.of()).stream().mapToLong(Counter::getCount).sum();
  }

  /** Forgets the counters of ended jobs. */
  static void reset() {
    COUNTERS.clear();
    JOB_COUNTERS.clear();
  }

  @Override
  public void open(MetricConfig config) {}

  @Override
  public void close() {}

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    String operator = group.getAllVariables().get("<operator_name>");
    if (operator != null && name.equals("numRecordsOut") && metric instanceof Counter counter) {
      COUNTERS.computeIfAbsent(operator, o -> new CopyOnWriteArrayList<>()).add(counter);
    }
    if (JOB_COUNTER_NAMES.contains(name) && metric instanceof Counter counter) {
      JOB_COUNTERS.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(counter);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

  /** Flink creates reporters through a factory named in the configuration. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new SourceProgress();
    }
  }
}
