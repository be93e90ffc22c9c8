package dev.weir.common.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * A sink that keeps what it is given, for a pipeline test on a MiniCluster (which runs in the
 * test's JVM): each sink has a name, and {@link #values} returns what the sinks of that name got,
 * in the order they got it.
 */
public final class CollectingSink<T> implements Sink<T> {

  private static final long serialVersionUID = 1L;
  private static final Map<String, List<Object>> COLLECTED = new ConcurrentHashMap<>();

  private final String name;

  private CollectingSink(String name) {
    this.name = name;
  }

  /** A sink of {@code name}, emptied of what an earlier one of that name collected. */
  public static <T> CollectingSink<T> named(String name) {
    COLLECTED.put(name, new ArrayList<>());
    return new CollectingSink<>(name);
  }

  /** What the sinks of {@code name} collected. */
  @SuppressWarnings("unchecked")
  public static <T> List<T> values(String name) {
    List<Object> values = COLLECTED.getOrDefault(name, List.of());
    synchronized (values) {
      return (List<T>) new ArrayList<>(values);
    }
  }

  @Override
  @SuppressWarnings("deprecation")
  public SinkWriter<T> createWriter(InitContext context) {
    List<Object> values = COLLECTED.computeIfAbsent(name, n -> new ArrayList<>());
    return new SinkWriter<>() {
      @Override
      public void write(T element, Context context) {
        synchronized (values) {
          values.add(element);
        }
      }

      @Override
      public void flush(boolean endOfInput) {}

      @Override
      public void close() {}
    };
  }
}
