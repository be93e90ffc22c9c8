package dev.weir.it.failover;

import dev.weir.common.config.WeirConfig;
import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import java.util.List;

/**
 * One streaming job's part in a failover test: its own database and topics, input sent in numbered
 * batches, and the check that the final results are exactly what those batches should give.
 */
interface Workload extends AutoCloseable {

  /** The jobs of the deployable jar to run, in the order to start them. */
  List<String> jobs();

  /** The jobs' configuration (a fresh database, topics of this run). */
  WeirConfig config();

  /** The services the jobs read or write, in the order a test restarts them. */
  List<LocalService> services(LocalStack stack);

  /**
   * Sends batch {@code n} (1, 2, ...). May fail while a service is down; sending the same batch
   * again must then give the same results.
   */
  void send(int n) throws Exception;

  /** Asserts the results of batches 1..{@code batches}: none lost, none duplicated. */
  void verify(int batches) throws Exception;

  /** A readable count of what {@code batches} batches are, e.g. "3,050 events". */
  String describe(int batches);

  static Workload create(String job, String run) throws Exception {
    return switch (job) {
      case "identity" -> new IdentityWorkload(run);
      case "activity-feed" -> new ActivityFeedWorkload(run);
      case "search-index" -> new SearchIndexWorkload(run);
      default -> throw new IllegalArgumentException("no failover workload for " + job);
    };
  }
}
