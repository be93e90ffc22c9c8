package dev.weir.common.kafka;

import dev.weir.common.DeadLetters;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import dev.weir.schema.InvalidEventException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Either;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Kafka sources and sinks of weir's jobs, wired one way: read-committed in, exactly-once out. */
public final class KafkaIo {

  private KafkaIo() {}

  /**
   * Reads a topic of JSON events: valid ones continue downstream with event-time timestamps (if an
   * assigner is given), invalid ones go to {@code dlq}. Watermarks are generated per partition at
   * the source.
   *
   * @param uid the stable operator uid prefix of this input (source and decoder)
   */
  public static <T> SingleOutputStreamOperator<T> read(
      StreamExecutionEnvironment env,
      WeirConfig config,
      DeadLetters dlq,
      String topic,
      EventCodec<T> codec,
      TypeInformation<T> type,
      Watermarks<T> watermarks,
      String uid) {
    return read(
        env,
        config,
        dlq,
        topic,
        codec,
        watermarks.check(config.get(WeirOptions.EVENT_TIME_MAX_AHEAD)),
        type,
        watermarks,
        uid);
  }

  /**
   * Reads a topic of JSON events, each converted to what the job reads them as; an event the
   * conversion refuses goes to {@code dlq} with its raw record, like one that does not decode.
   */
  public static <E, T> SingleOutputStreamOperator<T> read(
      StreamExecutionEnvironment env,
      WeirConfig config,
      DeadLetters dlq,
      String topic,
      EventCodec<E> codec,
      DecodingDeserializer.Conversion<E, T> conversion,
      TypeInformation<T> type,
      Watermarks<T> watermarks,
      String uid) {
    KafkaSource<Either<DeadLetter, T>> source =
        KafkaSource.<Either<DeadLetter, T>>builder()
            .setBootstrapServers(config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS))
            .setTopics(topic)
            .setGroupId(groupId(config, dlq.job()))
            .setStartingOffsets(
                OffsetsInitializer.committedOffsets(
                    org.apache.kafka.clients.consumer.OffsetResetStrategy.EARLIEST))
            .setProperties(clientProperties(config))
            .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
            .setProperty("partition.discovery.interval.ms", "30000")
            .setDeserializer(
                new DecodingDeserializer<>(
                    dlq.job(),
                    codec.withMaxBytes(config.get(WeirOptions.RECORD_MAX_BYTES)),
                    type,
                    codec.schema() == dev.weir.schema.EventSchema.CDC_CATALOG,
                    conversion))
            .build();
    return dlq.split(
        env.fromSource(source, watermarks.strategy(), topic).uid(uid + "-source").name(topic),
        type,
        uid + "-decode");
  }

  /** An exactly-once Kafka sink (Kafka transactions committed on checkpoints). */
  public static <T> KafkaSink<T> exactlyOnceSink(
      WeirConfig config,
      KafkaRecordSerializationSchema<T> serializer,
      String transactionalIdPrefix) {
    return exactlyOnceSink(config, serializer, transactionalIdPrefix, new Properties());
  }

  /** The same, with more producer settings. */
  public static <T> KafkaSink<T> exactlyOnceSink(
      WeirConfig config,
      KafkaRecordSerializationSchema<T> serializer,
      String transactionalIdPrefix,
      Properties producerSettings) {
    Properties producer = clientProperties(config);
    producer.setProperty(
        ProducerConfig.MAX_BLOCK_MS_CONFIG,
        Long.toString(config.get(WeirOptions.KAFKA_PRODUCER_MAX_BLOCK).toMillis()));
    producer.setProperty(
        ProducerConfig.LINGER_MS_CONFIG,
        Long.toString(config.get(WeirOptions.KAFKA_PRODUCER_LINGER).toMillis()));
    producer.setProperty(
        ProducerConfig.BATCH_SIZE_CONFIG,
        Long.toString(config.get(WeirOptions.KAFKA_PRODUCER_BATCH_SIZE).getBytes()));
    producer.putAll(producerSettings);
    // Must outlast the longest checkpoint plus a restart; the broker's maximum is set to 1 h.
    producer.setProperty(
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
        Long.toString(Duration.ofMinutes(15).toMillis()));
    return KafkaSink.<T>builder()
        .setBootstrapServers(config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS))
        .setRecordSerializer(serializer)
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(transactionalIdPrefix)
        .setKafkaProducerConfig(producer)
        .build();
  }

  /**
   * Creates the topics that do not exist yet (so that a fresh deployment or the local stack can
   * start in any order); existing topics are left as they are. Returns once every partition's
   * leader serves requests: an idempotent producer that writes to a partition its leader has not
   * opened yet can lose records for good (KAFKA-15591, see {@link #awaitLeadersServing}).
   */
  public static void createTopicsIfMissing(
      WeirConfig config, Collection<String> topics, int partitions) {
    try (Admin admin = admin(config)) {
      Set<String> existing = admin.listTopics().names().get();
      List<NewTopic> missing =
          topics.stream()
              .filter(t -> !existing.contains(t))
              .distinct()
              .map(t -> new NewTopic(t, partitions, (short) 1))
              .collect(Collectors.toList());
      if (!missing.isEmpty()) {
        try {
          admin.createTopics(missing).all().get();
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
      awaitLeadersServing(admin, topics);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot create Kafka topics "
              + topics
              + " at "
              + config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS)
              + ": "
              + e.getCause(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }

  /**
   * Waits until the leader of every partition of {@code topics} answers a partition request.
   *
   * <p>{@code createTopics} returns when the controller has committed the topic; its leader opens
   * the partitions a moment later, after it has told metadata requests about them. In between, an
   * idempotent producer with several requests in flight can have its first request refused
   * (NOT_LEADER_OR_FOLLOWER) and a later one appended; the broker then refuses every retry of the
   * first as out of order until it expires: lost records (KAFKA-15591, unfixed in Kafka 3.9). A
   * list-offsets request is answered by the partition's leader from the opened partition (the admin
   * client retries it until then), so once it succeeds, produce requests do too.
   */
  private static void awaitLeadersServing(Admin admin, Collection<String> topics)
      throws ExecutionException, InterruptedException {
    Map<String, TopicDescription> described =
        onceKnown(() -> admin.describeTopics(Set.copyOf(topics)).allTopicNames().get());
    Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
    described.forEach(
        (topic, description) ->
            description
                .partitions()
                .forEach(
                    p ->
                        partitions.put(
                            new TopicPartition(topic, p.partition()), OffsetSpec.latest())));
    admin.listOffsets(partitions).all().get();
  }

  /**
   * An admin request about topics, asked again (up to 10 s) while the broker does not know them.
   */
  private interface TopicRequest<T> {
    T ask() throws ExecutionException, InterruptedException;
  }

  private static <T> T onceKnown(TopicRequest<T> request)
      throws ExecutionException, InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        return request.ask();
      } catch (ExecutionException e) {
        // A topic created a moment ago may not be known to every part of the broker yet.
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || attempt >= 40) {
          throw e;
        }
        Thread.sleep(250);
      }
    }
  }

  /**
   * Makes the topic take records of up to {@code bytes} (its {@code max.message.bytes}), raising
   * the setting where it is lower. A record the broker refuses would fail the job's writer over and
   * over.
   */
  /**
   * Makes the topics compacted: Kafka keeps at least the latest record of each key, whatever its
   * age, instead of deleting records after the retention time.
   */
  public static void compact(WeirConfig config, Collection<String> topics) {
    Map<ConfigResource, Collection<AlterConfigOp>> compact = new java.util.HashMap<>();
    for (String topic : topics) {
      compact.put(
          new ConfigResource(ConfigResource.Type.TOPIC, topic),
          List.of(
              new AlterConfigOp(
                  new ConfigEntry(
                      TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT),
                  AlterConfigOp.OpType.SET)));
    }
    try (Admin admin = admin(config)) {
      admin.incrementalAlterConfigs(compact).all().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot make " + topics + " compacted: " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while configuring " + topics, e);
    }
  }

  public static void allowRecordsOf(WeirConfig config, String topic, int bytes) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (Admin admin = admin(config)) {
      Config current =
          onceKnown(() -> admin.describeConfigs(List.of(resource)).all().get().get(resource));
      var setting = current.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
      if (setting != null && Long.parseLong(setting.value()) >= bytes) {
        return;
      }
      admin
          .incrementalAlterConfigs(
              Map.of(
                  resource,
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry(
                              TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(bytes)),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot let " + topic + " take records of " + bytes + " bytes: " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while configuring " + topic, e);
    }
  }

  /**
   * Deletes the topics that exist and waits until their names are free again (deletion is
   * asynchronous on the broker). For the demo and benchmarks, which start from a clean slate.
   */
  public static void deleteTopics(WeirConfig config, Collection<String> topics) {
    try (Admin admin = admin(config)) {
      Set<String> existing = new java.util.HashSet<>(admin.listTopics().names().get());
      existing.retainAll(topics);
      if (existing.isEmpty()) {
        return;
      }
      admin.deleteTopics(existing).all().get();
      while (admin.listTopics().names().get().stream().anyMatch(existing::contains)) {
        Thread.sleep(200);
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot delete Kafka topics " + topics + ": " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while deleting topics", e);
    }
  }

  /**
   * The sum of a topic's end offsets: its records, plus a marker per transaction for topics written
   * exactly once.
   */
  public static long endOffsets(WeirConfig config, String topic) {
    try (Admin admin = admin(config)) {
      return endOffsets(admin, topic);
    }
  }

  /** The same, through a client the caller keeps (to poll without a new connection each time). */
  public static long endOffsets(Admin admin, String topic) {
    try {
      var partitions =
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      partitions.forEach(
          p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      return admin.listOffsets(latest).all().get().values().stream()
          .mapToLong(o -> o.offset())
          .sum();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return 0;
      }
      throw new IllegalStateException("cannot read the end of " + topic + ": " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading offsets", e);
    }
  }

  /**
   * How every Kafka client of a job connects: the bootstrap servers and, for a secured cluster, the
   * protocol, the SASL login and the CA to trust. The SASL password is not among them: {@link
   * SecretScramLoginModule} reads it in the process that logs in.
   */
  public static Properties clientProperties(WeirConfig config) {
    Properties props = new Properties();
    props.setProperty(
        CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
        config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS));
    String protocol = config.get(WeirOptions.KAFKA_SECURITY_PROTOCOL).toUpperCase(Locale.ROOT);
    props.setProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
    if (protocol.startsWith("SASL_")) {
      String mechanism = config.get(WeirOptions.KAFKA_SASL_MECHANISM);
      if (!mechanism.startsWith("SCRAM-")) {
        throw new IllegalArgumentException(
            "kafka.sasl.mechanism " + mechanism + ": weir logs in with SCRAM-SHA-256 or -512");
      }
      String user =
          config
              .getOptional(WeirOptions.KAFKA_SASL_USERNAME)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "kafka.security.protocol "
                              + protocol
                              + " needs kafka.sasl.username (env KAFKA_USERNAME)"));
      String passwordFrom =
          config
              .getOptional(WeirOptions.KAFKA_SASL_PASSWORD_FILE)
              .map(f -> "passwordFile=\"" + jaasQuoted(f) + "\"")
              .orElse("passwordEnv=\"KAFKA_PASSWORD\"");
      props.setProperty(SaslConfigs.SASL_MECHANISM, mechanism);
      props.setProperty(
          SaslConfigs.SASL_JAAS_CONFIG,
          SecretScramLoginModule.class.getName()
              + " required username=\""
              + jaasQuoted(user)
              + "\" "
              + passwordFrom
              + ";");
    }
    config
        .getOptional(WeirOptions.KAFKA_SSL_CA_FILE)
        .ifPresent(
            ca -> {
              props.setProperty(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
              props.setProperty(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca);
            });
    return props;
  }

  private static String jaasQuoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /**
   * The consumer group a job's sources commit their offsets to (for monitoring; a restore starts
   * from the checkpoint's offsets, a fresh start from the group's), for the job's only deployment.
   */
  public static String groupId(String job) {
    return "weir-" + job;
  }

  /** The same, for the deployment {@code config} names ({@link #deploymentName}). */
  public static String groupId(WeirConfig config, String job) {
    return deploymentName(config, job);
  }

  private static final java.util.regex.Pattern DEPLOYMENT_ID =
      java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /**
   * The name of this deployment of {@code job} on its Kafka cluster: {@code weir-<job>}, and with
   * {@code deployment.id} set, {@code weir-<job>-<deployment.id>}. Its consumer group and the
   * prefix of every transactional id of its exactly-once sinks start with it, so two deployments of
   * one job on one broker, told apart by their deployment ids, never fence each other's producers.
   * Unset, the names are those of weir before the option: a job upgraded without it keeps its
   * transactions.
   */
  public static String deploymentName(WeirConfig config, String job) {
    return config
        .getOptional(WeirOptions.DEPLOYMENT_ID)
        .map(
            id -> {
              if (!DEPLOYMENT_ID.matcher(id).matches()) {
                throw new IllegalArgumentException(
                    "deployment.id '"
                        + id
                        + "': letters, digits, '.', '_' and '-' (not first), at most 64");
              }
              return "weir-" + job + "-" + id;
            })
        .orElse("weir-" + job);
  }

  /**
   * The transactional-id prefix of one exactly-once sink of a job: {@link #deploymentName}, then
   * the sink's name ({@code enriched}, {@code dlq}; empty for a job's only sink).
   */
  public static String transactionalIdPrefix(WeirConfig config, String job, String sink) {
    String deployment = deploymentName(config, job);
    return sink.isEmpty() ? deployment : deployment + "-" + sink;
  }

  /** An admin client of the configured cluster; the caller closes it. */
  public static Admin admin(WeirConfig config) {
    return admin(clientProperties(config));
  }

  /** The same, from {@link #clientProperties} carried into a running job. */
  public static Admin admin(Properties clientProperties) {
    Properties props = new Properties();
    props.putAll(clientProperties);
    props.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    return Admin.create(props);
  }

  /** How a source assigns event time; {@link #none()} for processing-time inputs. */
  public static final class Watermarks<T> implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final SerializableTimestampAssigner<T> assigner;
    private final Duration outOfOrderness;
    private final Duration idleness;
    private final Duration caughtUpLag;

    private Watermarks(
        SerializableTimestampAssigner<T> assigner,
        Duration outOfOrderness,
        Duration idleness,
        Duration caughtUpLag) {
      this.assigner = assigner;
      this.outOfOrderness = outOfOrderness;
      this.idleness = idleness;
      this.caughtUpLag = caughtUpLag;
    }

    public static <T> Watermarks<T> none() {
      return new Watermarks<>(null, null, null, null);
    }

    /**
     * Event time from the event, of a change stream read in the order it was made ({@link
     * CaughtUpWatermarks}): a split that has caught up moves with the wall clock less {@code lag}.
     * An event time ahead of the clock is taken as now (a source database's clock ahead of the
     * job's would otherwise hold every timer back), not refused: a change is never dropped for it.
     */
    public static <T> Watermarks<T> caughtUp(
        SerializableTimestampAssigner<T> assigner, Duration lag) {
      SerializableTimestampAssigner<T> notAhead =
          (event, kafkaTimestamp) ->
              Math.min(
                  assigner.extractTimestamp(event, kafkaTimestamp), System.currentTimeMillis());
      return new Watermarks<>(notAhead, null, null, lag);
    }

    /**
     * Event time from the event; watermarks lag the highest time seen by {@code outOfOrderness}.
     */
    public static <T> Watermarks<T> boundedOutOfOrderness(
        SerializableTimestampAssigner<T> assigner, Duration outOfOrderness, Duration idleness) {
      return new Watermarks<>(assigner, outOfOrderness, idleness, null);
    }

    /**
     * Refuses an event time too far ahead of the clock: one such event would move its partition's
     * watermark past every real event to come, which would then all be late (and, in the activity
     * feed, archive every entry at once).
     */
    DecodingDeserializer.Conversion<T, T> check(Duration maxAhead) {
      if (assigner == null || caughtUpLag != null) {
        return DecodingDeserializer.Conversion.none();
      }
      SerializableTimestampAssigner<T> events = assigner;
      long limit = maxAhead.toMillis();
      return event -> {
        long time = events.extractTimestamp(event, Long.MIN_VALUE);
        EventTimes.requireStorable(Instant.ofEpochMilli(time));
        long ahead = time - System.currentTimeMillis();
        if (ahead <= limit) {
          return event;
        }
        throw new InvalidEventException(
            "event time "
                + Instant.ofEpochMilli(time)
                + " is "
                + (ahead >= Duration.ofDays(2).toMillis()
                    ? ahead / Duration.ofDays(1).toMillis() + " days"
                    : ahead / 60_000 + " min")
                + " ahead of the clock (event-time.max-ahead is "
                + TimeUtils.formatWithHighestUnit(maxAhead)
                + "): it would make every later event late");
      };
    }

    WatermarkStrategy<Either<DeadLetter, T>> strategy() {
      if (assigner == null) {
        return WatermarkStrategy.noWatermarks();
      }
      SerializableTimestampAssigner<T> events = assigner;
      SerializableTimestampAssigner<Either<DeadLetter, T>> times =
          (record, kafkaTimestamp) ->
              // A dead letter has no event time; it must not move the watermark forward.
              record.isRight()
                  ? events.extractTimestamp(record.right(), kafkaTimestamp)
                  : Long.MIN_VALUE;
      if (caughtUpLag != null) {
        long lagMs = caughtUpLag.toMillis();
        return WatermarkStrategy.<Either<DeadLetter, T>>forGenerator(
                context ->
                    new CaughtUpWatermarks<>(
                        context.getInputActivityClock(), System::currentTimeMillis, lagMs))
            .withTimestampAssigner(times);
      }
      return WatermarkStrategy.<Either<DeadLetter, T>>forBoundedOutOfOrderness(outOfOrderness)
          .withTimestampAssigner(times)
          .withIdleness(idleness);
    }
  }
}
