package dev.weir.bench.feed;

import dev.weir.feed.CollationKey;
import dev.weir.schema.ActivityEvent;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The fewest keyed-state calls an exactly-once collation by key makes per event: is the id new (a
 * read), remember it (a write), read the key's state and write it back. weir's collator makes these
 * and more (the event waits in state for the watermark, then joins an entry). Emits nothing.
 */
final class KeyedStateFloor
    extends KeyedProcessFunction<CollationKey, ActivityEvent, ActivityEvent> {
  private static final long serialVersionUID = 1L;
  private transient MapState<String, Boolean> seen;
  private transient ValueState<Long> lastAt;

  @Override
  public void open(OpenContext context) {
    seen =
        getRuntimeContext()
            .getMapState(new MapStateDescriptor<>("seen", Types.STRING, Types.BOOLEAN));
    lastAt = getRuntimeContext().getState(new ValueStateDescriptor<>("last-at", Types.LONG));
  }

  @Override
  public void processElement(ActivityEvent event, Context ctx, Collector<ActivityEvent> out)
      throws Exception {
    if (seen.contains(event.eventId())) {
      return;
    }
    seen.put(event.eventId(), true);
    Long last = lastAt.value();
    long at = event.occurredAt().toEpochMilli();
    lastAt.update(last == null ? at : Math.max(last, at));
  }
}
