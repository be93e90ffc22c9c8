package dev.weir.common.kafka;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The topics of weir's jobs: created before a job starts, configured, and read for their ends. */
public final class KafkaTopics {

  private KafkaTopics() {}

  /**
   * Creates the topics that do not exist yet (so that a fresh deployment or the local stack can
   * start in any order); existing topics are left as they are. Returns once every partition's
   * leader serves requests: an idempotent producer that writes to a partition its leader has not
   * opened yet can lose records for good (KAFKA-15591, see {@link #awaitLeadersServing}).
   */
  public static void createTopicsIfMissing(
      WeirConfig config, Collection<String> topics, int partitions) {
    try (Admin admin = KafkaClients.admin(config)) {
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
   * Makes the topics compacted: Kafka keeps at least the latest record of each key, whatever its
   * age, instead of deleting records after the retention time.
   */
  public static void compact(WeirConfig config, Collection<String> topics) {
    Map<ConfigResource, Collection<AlterConfigOp>> compact = new HashMap<>();
    for (String topic : topics) {
      compact.put(
          new ConfigResource(ConfigResource.Type.TOPIC, topic),
          List.of(
              new AlterConfigOp(
                  new ConfigEntry(
                      TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT),
                  AlterConfigOp.OpType.SET)));
    }
    try (Admin admin = KafkaClients.admin(config)) {
      admin.incrementalAlterConfigs(compact).all().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot make " + topics + " compacted: " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while configuring " + topics, e);
    }
  }

  /**
   * Makes the topic take records of up to {@code bytes} (its {@code max.message.bytes}), raising
   * the setting where it is lower. A record the broker refuses would fail the job's writer over and
   * over.
   */
  public static void allowRecordsOf(WeirConfig config, String topic, int bytes) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (Admin admin = KafkaClients.admin(config)) {
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
    try (Admin admin = KafkaClients.admin(config)) {
      Set<String> existing = new HashSet<>(admin.listTopics().names().get());
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
    try (Admin admin = KafkaClients.admin(config)) {
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
}
