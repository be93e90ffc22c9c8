package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.Json;
import dev.weir.schema.TrackingEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tracking events waiting for a lookup (the Enricher's list state "waiting") in a savepoint of an
 * earlier weir restore: that weir kept them with Flink's default type, where the properties map
 * went through Kryo; today's {@link Enricher#EVENT} writes it as JSON, and Flink migrates the state
 * on restore. Run against both backends: local runs keep state on the heap, Kubernetes in RocksDB.
 */
class WaitingEventsSavepointTest {

  enum Backend {
    HEAP,
    ROCKSDB
  }

  private static final TypeInformation<TrackingEvent> BEFORE =
      TypeInformation.of(TrackingEvent.class);

  @Test
  void theEarlierTypeKeptThePropertiesInKryoAndTodaysDoesNot() {
    assertThat(BEFORE.toString()).contains("GenericType<java.util.Map>");
    assertThat(Enricher.EVENT.toString()).doesNotContain("GenericType").contains("JsonMap");
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void eventsWaitingInAnEarlierSavepointComeBackWithTheirProperties(Backend backend)
      throws Exception {
    List<TrackingEvent> waiting =
        List.of(
            event("e1", "{\"plan\":\"pro\",\"price\":19.90,\"tags\":[\"a\",{\"b\":1}]}"),
            event("e2", "{}"),
            new TrackingEvent("e3", "p1", "d1", "Signed Up", Instant.EPOCH, null));
    OperatorSubtaskState savepoint;
    try (var before = harness(BEFORE, backend)) {
      before.open();
      for (TrackingEvent e : waiting) {
        before.processElement(e, 0);
      }
      savepoint =
          before
              .snapshotWithLocalState(1, 1, SavepointType.savepoint(SavepointFormatType.CANONICAL))
              .getJobManagerOwnedState();
    }
    try (var after = harness(Enricher.EVENT, backend)) {
      after.initializeState(savepoint);
      after.open();
      // A fourth event of the key: the function emits everything waiting, restored first.
      after.processElement(event("e4", "{\"n\":1}"), 0);
      List<TrackingEvent> restored = after.extractOutputValues();
      assertThat(restored.subList(0, 3)).containsExactlyElementsOf(waiting);
    }
  }

  private static TrackingEvent event(String id, String properties) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = Json.mapper().readValue(properties, Map.class);
    return new TrackingEvent(id, "p1", "d1", "Viewed", Instant.parse("2026-11-23T05:00:00Z"), map);
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, TrackingEvent, TrackingEvent>
      harness(TypeInformation<TrackingEvent> type, Backend backend) throws Exception {
    var harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(new Waiting(type)), TrackingEvent::distinctId, Types.STRING);
    if (backend == Backend.ROCKSDB) {
      harness.setStateBackend(new EmbeddedRocksDBStateBackend());
    }
    harness.setup(type.createSerializer(harness.getExecutionConfig().getSerializerConfig()));
    return harness;
  }

  /** Keeps events in a list state like the Enricher's; a fourth releases them all. */
  private static final class Waiting
      extends KeyedProcessFunction<String, TrackingEvent, TrackingEvent> {
    private final TypeInformation<TrackingEvent> type;
    private transient ListState<TrackingEvent> waiting;

    Waiting(TypeInformation<TrackingEvent> type) {
      this.type = type;
    }

    @Override
    public void open(org.apache.flink.api.common.functions.OpenContext context) {
      waiting = getRuntimeContext().getListState(new ListStateDescriptor<>("waiting", type));
    }

    @Override
    public void processElement(TrackingEvent event, Context ctx, Collector<TrackingEvent> out)
        throws Exception {
      waiting.add(event);
      List<TrackingEvent> all = new ArrayList<>();
      waiting.get().forEach(all::add);
      if (all.size() > 3) {
        all.forEach(out::collect);
        waiting.clear();
      }
    }
  }
}
