package dev.weir.feed;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.dlq.DecodedTopics;
import dev.weir.common.job.WeirJob;
import dev.weir.common.kafka.Watermarks;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.store.BufferedStoreSink;
import dev.weir.common.types.KryoFree;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * activity-feed: {@code activity.events} → collation by (workspace, actor, element type, element
 * id, action) on event time → {@code feed_entry}, updated in place → {@code feed_archive}.
 *
 * <p>Its timers, one per live entry, stay where the RocksDB backend keeps them by default, in
 * RocksDB: on the heap they would cost heap per live entry (docs/state.md).
 */
public final class ActivityFeedJob implements WeirJob {

  /** The decoded events, their details out of Kryo: the job's input type, for tests too. */
  public static final TypeInformation<ActivityEvent> EVENT = KryoFree.pojoOf(ActivityEvent.class);

  public static final String NAME = "activity-feed";

  /** The most entries one write to the feed store holds. */
  private static final int STORE_BATCH = 1000;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> topics(WeirConfig config) {
    return List.of(config.get(FeedOptions.TOPIC), config.get(WeirOptions.DLQ_TOPIC));
  }

  @Override
  public void prepare(WeirConfig config) {
    Migrations.apply(config);
  }

  /** How the job reads event time: occurred_at, out of order by up to the configured bound. */
  public static Watermarks<ActivityEvent> watermarks(FeedSettings settings) {
    return Watermarks.boundedOutOfOrderness(
        (e, ts) -> e.occurredAt().toEpochMilli(),
        Duration.ofMillis(settings.outOfOrdernessMs()),
        Duration.ofSeconds(10));
  }

  @Override
  public void build(StreamExecutionEnvironment env, WeirConfig config) {
    FeedSettings settings = FeedSettings.from(config);
    // No operator changes a record it was handed: the collator (which keeps waiting events until
    // the next checkpoint) gets its own from the network and emits fresh writes with copied
    // entries. Chained operators need no copy.
    env.getConfig().enableObjectReuse();
    DeadLetters dlq = new DeadLetters(NAME);
    DataStream<ActivityEvent> events =
        DecodedTopics.read(
            env,
            config,
            dlq,
            config.get(FeedOptions.TOPIC),
            EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class),
            EVENT,
            watermarks(settings),
            NAME + "-events");
    collate(events, settings, storeSink(config, settings));
    dlq.sinkTo(config);
  }

  /**
   * feed_entry and feed_archive: writes of one entry folded into one, a batch flushed within the
   * store's share of the staleness bound.
   */
  public static Sink<FeedWrite> storeSink(WeirConfig config, FeedSettings settings) {
    return new BufferedStoreSink<>(
        "the feed store at " + config.get(WeirOptions.POSTGRES_URL),
        () -> FeedStore.open(config),
        w -> w.entry.workspaceId + "\u0000" + w.entry.entryId,
        FeedWrite::then,
        settings.storeFlushMs(),
        STORE_BATCH,
        PostgresTimeouts.of(config));
  }

  /** The job's logic between its source and its store: tests call it with their own ends. */
  public static void collate(
      DataStream<ActivityEvent> events, FeedSettings settings, Sink<FeedWrite> store) {
    events
        .keyBy(CollationKey::of)
        .transform("collate", KryoFree.pojoOf(FeedWrite.class), new Collator(settings))
        .uid(NAME + "-collate")
        .name("collate")
        .sinkTo(store)
        .uid(NAME + "-store")
        .name("feed_entry / feed_archive");
  }
}
