package dev.weir.backfill;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.WeirJob;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.search.SearchDocumentStore;
import dev.weir.sink.elasticsearch.DocumentOperation;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import dev.weir.sink.elasticsearch.ElasticsearchSink;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * backfill, one pass: the copy's product ids cut into splits → each split compared with the target
 * ({@link SplitComparer}) → the documents the target lacks, bulk-written with their versions. A
 * bounded job; {@link Backfill} runs it (twice, around the alias swap).
 */
public final class BackfillJob implements WeirJob {

  public static final String NAME = "backfill";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> topics(WeirConfig config) {
    return List.of();
  }

  /** Creates the target index from the mapping in schemas/, or checks the existing one's. */
  @Override
  public void prepare(WeirConfig config) {
    String target = BackfillOptions.target(config);
    ElasticsearchSettings elasticsearch = ElasticsearchSettings.from(config);
    try (var transport = ElasticsearchClients.transport(elasticsearch)) {
      TargetIndex.createOrCheck(new ElasticsearchClient(transport), target);
    } catch (java.io.IOException e) {
      throw new BackfillException(ElasticsearchClients.explain(elasticsearch, e), e);
    }
  }

  @Override
  public void build(StreamExecutionEnvironment env, WeirConfig config) {
    // A bounded job ends: a few restarts ride out a lost TaskManager or connection, but a document
    // Elasticsearch refuses would fail again forever, so the failure must reach the person running
    // it.
    Configuration restarts = new Configuration();
    restarts.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    restarts.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    restarts.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(2));
    env.configure(restarts);
    String target = BackfillOptions.target(config);
    long[] starts = splitStarts(config, config.get(BackfillOptions.SPLIT_SIZE));
    if (starts.length == 0) {
      starts = new long[] {Long.MIN_VALUE}; // an empty copy: one split, for the same summary
    }
    env.fromSequence(0, starts.length - 1)
        .name("splits of search_document")
        .uid(NAME + "-splits")
        .rebalance()
        .flatMap(new SplitComparer(config, target, starts, config.get(BackfillOptions.DRY_RUN)))
        .name("compare with " + target)
        .uid(NAME + "-compare")
        .sinkTo(
            ElasticsearchSink.<DocumentOperation>builder()
                .setSettings(ElasticsearchSettings.from(config))
                .setConverter((op, context) -> op)
                .build())
        .name("Elasticsearch " + target)
        .uid(NAME + "-index");
  }

  /** Where the copy's splits start. Fails clearly without the table. */
  static long[] splitStarts(WeirConfig config, int splitSize) {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return SearchDocumentStore.splitStarts(c, splitSize);
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        throw new BackfillException(
            "there is no search_document table at "
                + config.get(dev.weir.common.config.WeirOptions.POSTGRES_URL)
                + ": run the search-index job first (or point postgres.url at its database)",
            e);
      }
      throw new BackfillException("cannot read search_document: " + e.getMessage(), e);
    }
  }
}
