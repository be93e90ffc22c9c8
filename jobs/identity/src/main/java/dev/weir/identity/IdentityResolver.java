package dev.weir.identity;

import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.IdentityEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Applies identify / alias / merge, one project at a time (keyed by project id), to the identity
 * table: it reads the rows involved, writes the changed columns in one transaction, and tells the
 * enricher which distinct ids now map elsewhere. A rejected event goes to the DLQ with the reason.
 *
 * <p>Identity events are few next to tracking events, so this step talks to the store directly.
 * Replaying them after a restore changes nothing: each rule is idempotent.
 */
public class IdentityResolver
    extends KeyedProcessFunction<String, ReadIdentityEvent, MappingChange> {

  private static final long serialVersionUID = 1L;

  private final IdentityStores.Opener opener;
  private final String job;
  private final int mergeCap;

  private transient IdentityStore store;
  private transient IdentityRules rules;
  private transient EventCodec<IdentityEvent> codec;
  private transient Counter applied;
  private transient Counter rejected;
  private transient Counter mappingsChanged;

  public IdentityResolver(IdentityStores.Opener opener, String job, int mergeCap) {
    this.opener = opener;
    this.job = job;
    this.mergeCap = mergeCap;
  }

  @Override
  public void open(OpenContext openContext) throws Exception {
    JdbcDrivers.deregisterOnRelease(getRuntimeContext());
    SpannerClients.stopLibraryThreadsOnRelease(getRuntimeContext());
    store = opener.open();
    rules = new IdentityRules(mergeCap);
    codec = EventCodec.of(EventSchema.IDENTITY_EVENTS, IdentityEvent.class);
    var metrics = getRuntimeContext().getMetricGroup();
    applied = metrics.counter("weirIdentityEventsApplied");
    rejected = metrics.counter("weirIdentityEventsRejected");
    mappingsChanged = metrics.counter("weirMappingsChanged");
  }

  @Override
  public void processElement(ReadIdentityEvent read, Context ctx, Collector<MappingChange> out)
      throws Exception {
    IdentityEvent event = read.event;
    IdentityRules.Outcome outcome = rules.apply(event, new StoreLookup(store, event.projectId()));
    if (outcome.isRejected()) {
      rejected.inc();
      ctx.output(
          DeadLetters.TAG,
          DeadLetters.rejected(job, read.source, codec.encode(event), outcome.rejection()));
      return;
    }
    store.write(outcome.changed());
    applied.inc();
    for (IdentityRecord r : outcome.changed()) {
      if (r.isChanged(IdentityRecord.Column.CANONICAL_ID)) {
        mappingsChanged.inc();
        out.collect(new MappingChange(r.projectId(), r.distinctId(), r.canonicalId()));
      }
    }
  }

  @Override
  public void close() throws Exception {
    if (store != null) {
      store.close();
    }
  }

  /** The store as the rules see it: one project, each row read once per event. */
  static final class StoreLookup implements IdentityRules.Lookup {
    private final IdentityStore store;
    private final String projectId;
    private final Map<String, IdentityRecord> rows = new HashMap<>();

    StoreLookup(IdentityStore store, String projectId) {
      this.store = store;
      this.projectId = projectId;
    }

    @Override
    public IdentityRecord get(String distinctId) throws Exception {
      IdentityRecord row = rows.get(distinctId);
      if (row == null) {
        IdentityKey key = new IdentityKey(projectId, distinctId);
        row = store.get(Set.of(key)).get(key);
        if (row == null) {
          row = IdentityRecord.unseen(projectId, distinctId);
        }
        rows.put(distinctId, row);
      }
      return row;
    }

    @Override
    public List<IdentityRecord> byCanonical(String canonicalId, int limit) throws Exception {
      List<IdentityRecord> found = store.byCanonical(projectId, canonicalId, limit);
      for (IdentityRecord r : found) {
        rows.putIfAbsent(r.distinctId(), r);
      }
      return found.stream().map(r -> rows.get(r.distinctId())).toList();
    }
  }
}
