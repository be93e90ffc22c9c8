package dev.weir.identity;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.dlq.DecodedTopics;
import dev.weir.common.job.WeirJob;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.EventTimes;
import dev.weir.common.kafka.KafkaSinks;
import dev.weir.common.kafka.Watermarks;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.store.BufferedStoreSink;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.TrackingEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * identity: {@code identity.events} → identify / alias / merge on the identity table (keyed by
 * project) → mapping changes; {@code tracking.events} + mapping changes → canonical id from the
 * cache or a batched lookup (keyed by project, distinct id) → {@code tracking.enriched}, keyed by
 * canonical id, exactly once; earliest_seen writes → the identity table, batched.
 */
public final class IdentityJob implements WeirJob {

  public static final String NAME = "identity";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> topics(WeirConfig config) {
    return List.of(
        config.get(IdentityOptions.TRACKING_TOPIC),
        config.get(IdentityOptions.IDENTITY_TOPIC),
        config.get(IdentityOptions.ENRICHED_TOPIC),
        config.get(WeirOptions.DLQ_TOPIC));
  }

  @Override
  public void prepare(WeirConfig config) {
    if (config.get(IdentityOptions.STORE).equals("postgres")) {
      Migrations.apply(config);
    }
  }

  @Override
  public void build(StreamExecutionEnvironment env, WeirConfig config) {
    // No operator of this job keeps a record it was handed (state is written through RocksDB's
    // serializer or, on the heap, holds immutable Java records; the sinks encode at once), so
    // chained operators can pass them on without a copy.
    env.getConfig().enableObjectReuse();
    DeadLetters dlq = new DeadLetters(NAME);
    DataStream<TrackingEvent> tracking =
        DecodedTopics.read(
            env,
            config,
            dlq,
            config.get(IdentityOptions.TRACKING_TOPIC),
            EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class),
            EventTimes.storable(TrackingEvent::time), // earliest_seen is stored
            Enricher.EVENT,
            Watermarks.none(),
            NAME + "-tracking");
    DataStream<ReadIdentityEvent> identity =
        DecodedTopics.read(
            env,
            config,
            dlq,
            config.get(IdentityOptions.IDENTITY_TOPIC),
            EventCodec.of(EventSchema.IDENTITY_EVENTS, IdentityEvent.class),
            new ReadIdentityEvent.FromRecord(),
            TypeInformation.of(ReadIdentityEvent.class),
            Watermarks.none(),
            NAME + "-identity");
    IdentityStores.Opener store = IdentityStores.of(config);
    resolve(tracking, identity, store, config, enrichedSink(config), writeSink(store, config), dlq);
    dlq.sinkTo(config);
  }

  /**
   * The job's logic between its sources and its sinks, reading the identity table through {@code
   * store}: tests call it with their own ends.
   */
  public static void resolve(
      DataStream<TrackingEvent> tracking,
      DataStream<ReadIdentityEvent> identity,
      IdentityStores.Opener store,
      WeirConfig config,
      Sink<EnrichedTrackingEvent> enriched,
      Sink<IdentityRecord> identityWrites,
      DeadLetters dlq) {
    SingleOutputStreamOperator<MappingChange> changes =
        identity
            .keyBy(ReadIdentityEvent::projectId)
            .process(new IdentityResolver(store, NAME, config.get(IdentityOptions.MERGE_CAP)))
            .returns(MappingChange.class)
            .uid(NAME + "-resolve")
            .name("identify / alias / merge");
    dlq.add(changes.getSideOutput(DeadLetters.TAG));

    SingleOutputStreamOperator<EnrichedTrackingEvent> resolved =
        tracking
            .keyBy(
                e -> new IdentityKey(e.projectId(), e.distinctId()),
                TypeInformation.of(IdentityKey.class))
            .connect(changes.keyBy(MappingChange::key, TypeInformation.of(IdentityKey.class)))
            .process(
                new Enricher(
                    store,
                    config.get(IdentityOptions.CACHE_TTL),
                    config.get(IdentityOptions.LOOKUP_BATCH),
                    config.get(IdentityOptions.LOOKUP_WAIT)))
            .returns(Enricher.ENRICHED)
            .uid(NAME + "-enrich")
            .name("canonical id");
    resolved.sinkTo(enriched).uid(NAME + "-enriched").name("tracking.enriched");
    resolved
        .getSideOutput(Enricher.WRITES)
        .sinkTo(identityWrites)
        .uid(NAME + "-writes")
        .name("identity table");
  }

  /** {@code tracking.enriched}, exactly once (the benchmarks' floor writes through it too). */
  public static Sink<EnrichedTrackingEvent> enrichedSink(WeirConfig config) {
    EnrichedJson json = new EnrichedJson();
    return KafkaSinks.exactlyOnce(
        config,
        KafkaRecordSerializationSchema.<EnrichedTrackingEvent>builder()
            .setTopic(config.get(IdentityOptions.ENRICHED_TOPIC))
            .setKeySerializationSchema(e -> e.canonicalId().getBytes(StandardCharsets.UTF_8))
            .setValueSerializationSchema(json::encode)
            .build(),
        DeploymentNames.transactionalIdPrefix(config, NAME, "enriched"));
  }

  /** earliest_seen and first-sighting writes, folded per distinct id and batched. */
  public static Sink<IdentityRecord> writeSink(IdentityStores.Opener store, WeirConfig config) {
    return new BufferedStoreSink<>(
        "the identity table (" + config.get(IdentityOptions.STORE) + ")",
        store,
        r -> r.projectId() + "\u0000" + r.distinctId(),
        IdentityRecord::then,
        config.get(IdentityOptions.WRITE_FLUSH).toMillis(),
        1000,
        PostgresTimeouts.of(config));
  }
}
