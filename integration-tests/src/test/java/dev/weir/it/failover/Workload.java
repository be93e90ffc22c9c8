package dev.weir.it.failover;

import dev.weir.common.config.WeirConfig;
import dev.weir.it.Kafka;
import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * One streaming job's part in a failover test: its own database and topics, input sent in numbered
 * batches, and the check that the final results are exactly what those batches should give.
 */
abstract class Workload implements AutoCloseable {

  private final List<String> jobs;

  /** The jobs' configuration (a fresh database, topics of this run). */
  final WeirConfig config;

  /** Sends the batches' records (acks=all, idempotent). */
  final KafkaProducer<byte[], byte[]> producer = Kafka.durableProducer();

  Workload(List<String> jobs, WeirConfig config) {
    this.jobs = jobs;
    this.config = config;
  }

  /** The jobs of the deployable jar to run, in the order to start them. */
  final List<String> jobs() {
    return jobs;
  }

  final WeirConfig config() {
    return config;
  }

  /** The services the jobs read or write, in the order a test restarts them. */
  List<LocalService> services(LocalStack stack) {
    return List.of(stack.kafka(), stack.postgres());
  }

  /**
   * The services a test then freezes for a while, after restarting each: those whose clients must
   * ride out a connection that hangs rather than one refused. None unless a workload says.
   */
  List<LocalService> frozen(LocalStack stack) {
    return List.of();
  }

  /**
   * Sends batch {@code n} (1, 2, ...). May fail while a service is down; sending the same batch
   * again must then give the same results.
   */
  abstract void send(int n) throws Exception;

  /** Asserts the results of batches 1..{@code batches}: none lost, none duplicated. */
  abstract void verify(int batches) throws Exception;

  /** A readable count of what {@code batches} batches are, e.g. "3,050 events". */
  abstract String describe(int batches);

  @Override
  public void close() throws Exception {
    producer.close();
  }

  static Workload create(String job, String run) throws Exception {
    return switch (job) {
      case "identity" -> new IdentityWorkload(run);
      case "activity-feed" -> new ActivityFeedWorkload(run);
      case "search-index" -> new SearchIndexWorkload(run);
      default -> throw new IllegalArgumentException("no failover workload for " + job);
    };
  }
}
