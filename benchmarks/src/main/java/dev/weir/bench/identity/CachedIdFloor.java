package dev.weir.bench.identity;

import dev.weir.identity.IdentityKey;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.TrackingEvent;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The least an enrichment from keyed state does per event: read the key's cached id (written on the
 * key's first event: the id itself) and emit the event with it. weir's enricher does this on a hit,
 * and at 99 % hits little else.
 */
final class CachedIdFloor
    extends KeyedProcessFunction<IdentityKey, TrackingEvent, EnrichedTrackingEvent> {
  private static final long serialVersionUID = 1L;
  private transient ValueState<String> canonicalId;

  @Override
  public void open(OpenContext context) {
    canonicalId =
        getRuntimeContext().getState(new ValueStateDescriptor<>("canonical-id", Types.STRING));
  }

  @Override
  public void processElement(TrackingEvent event, Context ctx, Collector<EnrichedTrackingEvent> out)
      throws Exception {
    String id = canonicalId.value();
    if (id == null) {
      id = event.distinctId();
      canonicalId.update(id);
    }
    out.collect(event.withCanonicalId(id));
  }
}
