package dev.weir.identity;

import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.common.types.KryoFree;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.TrackingEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Gives each tracking event its canonical id, keyed by (project id, distinct id).
 *
 * <ul>
 *   <li><b>Cache.</b> The mapping lives in keyed state with a TTL refreshed on use, so a repeat
 *       distinct id costs no database round trip. The refresh is a state write, so a hit writes at
 *       most once per tenth of the TTL ({@link #REFRESHES_PER_TTL}): a used mapping stays at least
 *       nine tenths of the TTL after its last use, and a hit is otherwise one state read.
 *   <li><b>Batched lookups.</b> A miss parks the event in keyed state and joins the next lookup:
 *       all misses of a {@code lookup-wait} window (or a full batch) are read in one query. Later
 *       events of a key that is waiting wait behind it, so per-key order holds.
 *   <li><b>earliest_seen.</b> A first sighting creates the row; an event older than the stored
 *       earliest_seen lowers it. Either way the write names only what changed, and goes to a
 *       batched sink (side output {@link #WRITES}); nothing is written for a repeat.
 *   <li><b>Changes</b> from identify / alias / merge update the cached canonical id; events already
 *       emitted keep the id they had.
 * </ul>
 */
public class Enricher
    extends KeyedCoProcessFunction<
        IdentityKey, TrackingEvent, MappingChange, EnrichedTrackingEvent> {

  private static final long serialVersionUID = 1L;

  /** Tracking events in records and in the waiting list: their properties as JSON, not Kryo. */
  public static final TypeInformation<TrackingEvent> EVENT = KryoFree.pojoOf(TrackingEvent.class);

  /**
   * The cached mapping in state: canonical id by {@link dev.weir.common.types.FastStringSerializer}
   * (Flink's String serializer looked up a thread-local buffer per read). It takes over state of
   * the plain POJO type as is: the same bytes.
   */
  static final TypeInformation<CachedIdentity> MAPPING = KryoFree.pojoOf(CachedIdentity.class);

  public static final TypeInformation<EnrichedTrackingEvent> ENRICHED =
      KryoFree.pojoOf(EnrichedTrackingEvent.class);

  public static final OutputTag<IdentityRecord> WRITES =
      new OutputTag<>("identity-writes", TypeInformation.of(IdentityRecord.class));

  /**
   * How often within one TTL a hit refreshes its mapping's: with Flink refreshing it on every read
   * ({@code OnReadAndWrite}), each hit would be a RocksDB get and a put, and the put a large share
   * of the enrich thread's time.
   */
  static final int REFRESHES_PER_TTL = 10;

  private final IdentityStores.Opener opener;
  private final Duration cacheTtl;
  private final long refreshEveryMs;
  private final int lookupBatch;
  private final long lookupWaitMs;

  private transient ValueState<CachedIdentity> cached;
  private transient ListState<TrackingEvent> waiting;
  private transient IdentityStore store;

  /** Keys waiting for the next lookup, and what the last lookup found (operator-wide). */
  private transient Set<IdentityKey> toLookUp;

  private transient Map<IdentityKey, CachedIdentity> lookedUp;

  private transient Counter eventsIn;
  private transient Counter hits;
  private transient Counter misses;
  private transient Counter lookups;
  private transient Counter writes;
  private transient Counter columnsWritten;

  public Enricher(
      IdentityStores.Opener opener, Duration cacheTtl, int lookupBatch, Duration lookupWait) {
    this.opener = opener;
    this.cacheTtl = cacheTtl;
    this.refreshEveryMs = Math.max(1, cacheTtl.toMillis() / REFRESHES_PER_TTL);
    this.lookupBatch = lookupBatch;
    this.lookupWaitMs = Math.max(1, lookupWait.toMillis());
  }

  @Override
  public void open(OpenContext openContext) throws Exception {
    ValueStateDescriptor<CachedIdentity> cache = new ValueStateDescriptor<>("mapping", MAPPING);
    cache.enableTimeToLive(
        StateTtlConfig.newBuilder(cacheTtl)
            .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
            .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
            .build());
    cached = getRuntimeContext().getState(cache);
    waiting = getRuntimeContext().getListState(new ListStateDescriptor<>("waiting", EVENT));
    JdbcDrivers.deregisterOnRelease(getRuntimeContext());
    SpannerClients.stopLibraryThreadsOnRelease(getRuntimeContext());
    store = opener.open();
    toLookUp = new LinkedHashSet<>();
    lookedUp = new HashMap<>();
    var metrics = getRuntimeContext().getMetricGroup();
    eventsIn = metrics.counter(WeirMetrics.EVENTS_IN);
    hits = metrics.counter("weirCacheHits");
    misses = metrics.counter("weirCacheMisses");
    lookups = metrics.counter("weirIdentityLookups");
    writes = metrics.counter("weirIdentityWrites");
    columnsWritten = metrics.counter("weirIdentityColumnsWritten");
    metrics.gauge(
        "weirCacheHitRatio",
        () -> {
          long total = hits.getCount() + misses.getCount();
          return total == 0 ? 1.0 : (double) hits.getCount() / total;
        });
  }

  @Override
  public void processElement1(
      TrackingEvent event, Context ctx, Collector<EnrichedTrackingEvent> out) throws Exception {
    eventsIn.inc();
    CachedIdentity identity = cached.value();
    if (identity != null) {
      // Events wait only while nothing is cached for their key, so none can be waiting here.
      hits.inc();
      long now = ctx.timerService().currentProcessingTime();
      boolean refresh = now - identity.refreshedAt >= refreshEveryMs;
      if (refresh) {
        identity.refreshedAt = now;
      }
      if (!enrich(event, identity, ctx, out) && refresh) {
        cached.update(identity); // the TTL counts from this write
      }
      return;
    }
    misses.inc();
    boolean first = !waiting.get().iterator().hasNext();
    waiting.add(event);
    if (first) {
      toLookUp.add(ctx.getCurrentKey());
      long now = ctx.timerService().currentProcessingTime();
      // Every key of one window fires at the same time: the first timer reads them all.
      ctx.timerService().registerProcessingTimeTimer((now / lookupWaitMs + 1) * lookupWaitMs);
      if (toLookUp.size() >= lookupBatch) {
        lookUpWaitingKeys();
      }
    }
  }

  @Override
  public void processElement2(
      MappingChange change, Context ctx, Collector<EnrichedTrackingEvent> out) throws Exception {
    CachedIdentity identity = cached.value();
    if (identity != null) {
      identity.canonicalId = change.canonicalId();
      cached.update(identity);
    } else if (lookedUp.containsKey(change.key())) {
      lookedUp.get(change.key()).canonicalId = change.canonicalId();
    }
    // Otherwise the next lookup reads it: the resolver writes before it tells.
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<EnrichedTrackingEvent> out)
      throws Exception {
    IdentityKey key = ctx.getCurrentKey();
    if (!waiting.get().iterator().hasNext()) {
      return;
    }
    if (!lookedUp.containsKey(key)) {
      toLookUp.add(key); // after a restore, the timer outlives the operator's memory
      lookUpWaitingKeys();
    }
    CachedIdentity identity = lookedUp.remove(key);
    identity.refreshedAt = ctx.timerService().currentProcessingTime();
    cached.update(identity);
    for (TrackingEvent event : waiting.get()) {
      enrich(event, identity, ctx, out);
    }
    waiting.clear();
  }

  private void lookUpWaitingKeys() throws Exception {
    if (toLookUp.isEmpty()) {
      return;
    }
    lookups.inc();
    Map<IdentityKey, IdentityRecord> rows = store.get(toLookUp);
    for (IdentityKey key : toLookUp) {
      lookedUp.put(key, CachedIdentity.of(key, rows.get(key)));
    }
    toLookUp.clear();
  }

  /** Enriches {@code event}; whether that wrote {@code identity} to state. */
  private boolean enrich(
      TrackingEvent event,
      CachedIdentity identity,
      Context ctx,
      Collector<EnrichedTrackingEvent> out)
      throws Exception {
    long at = event.time().toEpochMilli();
    IdentityRecord write = null;
    if (!identity.stored) {
      write = IdentityRecord.unseen(event.projectId(), event.distinctId());
      write.lowerEarliestSeen(at);
      identity.stored = true;
      identity.earliestSeen = at;
      cached.update(identity);
    } else if (identity.earliestSeen == null || at < identity.earliestSeen) {
      write =
          IdentityRecord.stored(
              event.projectId(),
              event.distinctId(),
              identity.canonicalId,
              identity.earliestSeen,
              false,
              false,
              false,
              null);
      write.lowerEarliestSeen(at);
      identity.earliestSeen = at;
      cached.update(identity);
    }
    if (write != null) {
      writes.inc();
      columnsWritten.inc(write.changedColumns().size());
      ctx.output(WRITES, write);
    }
    out.collect(event.withCanonicalId(identity.canonicalId));
    return write != null;
  }

  @Override
  public void close() throws Exception {
    if (store != null) {
      store.close();
    }
  }
}
