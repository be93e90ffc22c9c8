package dev.weir.common.testing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.streaming.api.functions.source.SourceFunction;

/**
 * A source that emits its elements, then stays open like a Kafka topic with nothing new, until the
 * job is cancelled: for a pipeline test of a job whose operators act on processing-time timers,
 * which a bounded input's end would cut short. The elements stay in the test's JVM (a MiniCluster
 * runs there), so they need not be serializable.
 */
@SuppressWarnings("deprecation")
public final class OpenSource<T> implements SourceFunction<T> {

  private static final long serialVersionUID = 1L;
  private static final Map<String, List<?>> ELEMENTS = new ConcurrentHashMap<>();

  private final String name;
  private volatile boolean running = true;

  private OpenSource(String name) {
    this.name = name;
  }

  /** A source of {@code elements}, under a name of its own in this JVM. */
  public static <T> OpenSource<T> of(String name, List<T> elements) {
    ELEMENTS.put(name, List.copyOf(elements));
    return new OpenSource<>(name);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void run(SourceContext<T> context) throws Exception {
    for (Object element : ELEMENTS.get(name)) {
      synchronized (context.getCheckpointLock()) {
        context.collect((T) element);
      }
    }
    while (running) {
      Thread.sleep(20);
    }
  }

  @Override
  public void cancel() {
    running = false;
  }
}
