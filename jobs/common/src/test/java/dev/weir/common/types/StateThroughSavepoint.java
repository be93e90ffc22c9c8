package dev.weir.common.types;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;

/**
 * What an upgrade does to keyed state whose type changed: values kept in a list state, as the
 * values of a map state or in a value state with the earlier type, a canonical savepoint, a restore
 * with today's type into a given backend (Flink migrates the state there, or refuses), and the
 * values read back.
 */
public final class StateThroughSavepoint {

  /** Local runs keep state on the heap, the Kubernetes deployments in RocksDB. */
  public enum Backend {
    HEAP,
    ROCKSDB
  }

  /** The kind of state that holds the values. */
  public enum Kind {
    LIST,
    MAP_VALUES,
    /** A value state: it holds the last of the values. */
    VALUE,
    /** A value state with a time to live (an hour), as a cache keeps: Flink wraps each value. */
    VALUE_WITH_TTL
  }

  private StateThroughSavepoint() {}

  public static <T> List<T> restore(
      List<T> values,
      TypeInformation<T> before,
      TypeInformation<T> after,
      Kind kind,
      Backend backend)
      throws Exception {
    OperatorSubtaskState savepoint;
    try (var harness = harness(new Keep<>(before, kind), before, backend)) {
      harness.open();
      for (T value : values) {
        harness.processElement(value, 0);
      }
      savepoint =
          harness
              .snapshotWithLocalState(1, 1, SavepointType.savepoint(SavepointFormatType.CANONICAL))
              .getJobManagerOwnedState();
    }
    try (var harness = harness(new Release<>(after, kind), after, backend)) {
      harness.initializeState(savepoint);
      harness.open();
      harness.processElement(values.get(0), 0); // any element of the key releases the list
      return harness.extractOutputValues();
    }
  }

  private static <T> KeyedOneInputStreamOperatorTestHarness<Integer, T, T> harness(
      KeyedProcessFunction<Integer, T, T> function, TypeInformation<T> type, Backend backend)
      throws Exception {
    var harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(function), value -> 0, Types.INT);
    if (backend == Backend.ROCKSDB) {
      harness.setStateBackend(new EmbeddedRocksDBStateBackend());
    }
    harness.setup(type.createSerializer(harness.getExecutionConfig().getSerializerConfig()));
    return harness;
  }

  private abstract static class WithState<T> extends KeyedProcessFunction<Integer, T, T> {
    private final TypeInformation<T> type;
    private final Kind kind;
    private transient ListState<T> list;
    private transient MapState<Integer, T> map;
    private transient ValueState<T> value;

    WithState(TypeInformation<T> type, Kind kind) {
      this.type = type;
      this.kind = kind;
    }

    @Override
    public void open(OpenContext context) {
      if (kind == Kind.LIST) {
        list = getRuntimeContext().getListState(new ListStateDescriptor<>("kept", type));
      } else if (kind == Kind.VALUE || kind == Kind.VALUE_WITH_TTL) {
        ValueStateDescriptor<T> descriptor = new ValueStateDescriptor<>("kept", type);
        if (kind == Kind.VALUE_WITH_TTL) {
          descriptor.enableTimeToLive(StateTtlConfig.newBuilder(Duration.ofHours(1)).build());
        }
        value = getRuntimeContext().getState(descriptor);
      } else {
        map = getRuntimeContext().getMapState(new MapStateDescriptor<>("kept", Types.INT, type));
      }
    }

    void add(T element) throws Exception {
      if (list != null) {
        list.add(element);
      } else if (value != null) {
        value.update(element);
      } else {
        int next = 0;
        for (Integer ignored : map.keys()) {
          next++;
        }
        map.put(next, element);
      }
    }

    List<T> all() throws Exception {
      List<T> all = new ArrayList<>();
      if (list != null) {
        list.get().forEach(all::add);
      } else if (value != null) {
        all.add(value.value());
      } else {
        for (int i = 0; map.contains(i); i++) {
          all.add(map.get(i));
        }
      }
      return all;
    }
  }

  private static final class Keep<T> extends WithState<T> {
    Keep(TypeInformation<T> type, Kind kind) {
      super(type, kind);
    }

    @Override
    public void processElement(T value, Context ctx, Collector<T> out) throws Exception {
      add(value);
    }
  }

  private static final class Release<T> extends WithState<T> {
    Release(TypeInformation<T> type, Kind kind) {
      super(type, kind);
    }

    @Override
    public void processElement(T value, Context ctx, Collector<T> out) throws Exception {
      all().forEach(out::collect);
    }
  }
}
