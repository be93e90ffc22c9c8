package dev.weir.backfill;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.WeirJob;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.connector.elasticsearch.ElasticsearchSettings;
import dev.weir.connector.elasticsearch.ElasticsearchSink;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.ElasticsearchConnection;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * backfill, one pass: the copy cut into splits of ids → each split compared with the target ({@link
 * SplitComparer}) → the documents the target lacks, bulk-written with their versions. A bounded
 * job; {@link Backfill} runs it (twice, around the alias swap). The copy is the document's copy
 * table ({@link CopySource#of}).
 */
public final class BackfillJob implements WeirJob {

  public static final String NAME = "backfill";

  private final CopySource copy;
  private final List<String> only;

  /** The copy the configuration names, found when the job is prepared and built. */
  public BackfillJob() {
    this(null, null);
  }

  /** A pass over the whole copy. */
  BackfillJob(CopySource copy) {
    this(copy, null);
  }

  /** A pass over the documents of {@code only} (null: the whole copy). */
  BackfillJob(CopySource copy, List<String> only) {
    this.copy = copy;
    this.only = only;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> topics(WeirConfig config) {
    return List.of();
  }

  private CopySource copy(WeirConfig config) {
    return copy != null ? copy : CopySource.of(config);
  }

  /** Creates the target index from the copy's mapping, or checks the existing one's. */
  @Override
  public void prepare(WeirConfig config) {
    String target = BackfillOptions.target(config);
    ElasticsearchSettings elasticsearch = ElasticsearchConnection.settings(config);
    try (SearchCluster cluster = SearchCluster.connect(elasticsearch)) {
      TargetIndex.createOrCheck(cluster, target, copy(config));
    } catch (IOException e) {
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
    CopySource source = copy(config);
    int splitSize = config.get(BackfillOptions.SPLIT_SIZE);
    List<Split> splits =
        only == null ? splits(config, source, splitSize) : Split.of(only, splitSize);
    env.fromSequence(0, splits.size() - 1)
        .name("splits of " + source.table())
        .uid(NAME + "-splits")
        .rebalance()
        .flatMap(
            new SplitComparer(config, target, source, splits, config.get(BackfillOptions.DRY_RUN)))
        .name("compare with " + target)
        .uid(NAME + "-compare")
        .sinkTo(
            ElasticsearchSink.<DocumentOperation>builder()
                .setSettings(ElasticsearchConnection.settings(config))
                .setConverter((op, context) -> op)
                .setPipeline(source.pipeline())
                .build())
        .name("Elasticsearch " + target)
        .uid(NAME + "-index");
  }

  /** The copy's splits (at least one). Fails clearly without the table. */
  static List<Split> splits(WeirConfig config, CopySource copy, int splitSize) {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return copy.splits(c, splitSize);
    } catch (SQLException e) {
      throw unreadable(config, copy, e);
    }
  }

  /** A mark to take before a pass, for {@link #writtenSince}. */
  static long writeMark(WeirConfig config, CopySource copy) {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return copy.writeMark(c);
    } catch (SQLException e) {
      throw unreadable(config, copy, e);
    }
  }

  /** The ids of the copy's documents written since {@code mark}. */
  static List<String> writtenSince(WeirConfig config, CopySource copy, long mark) {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return copy.writtenSince(c, mark);
    } catch (SQLException e) {
      throw unreadable(config, copy, e);
    }
  }

  /** How many documents the copy holds. Fails clearly without the table. */
  static long count(WeirConfig config, CopySource copy) {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return copy.count(c);
    } catch (SQLException e) {
      throw unreadable(config, copy, e);
    }
  }

  private static BackfillException unreadable(WeirConfig config, CopySource copy, SQLException e) {
    if ("42P01".equals(e.getSQLState())) {
      return new BackfillException(
          "there is no "
              + copy.table()
              + " table at "
              + config.get(WeirOptions.POSTGRES_URL)
              + ": run the search-index job first, with the same definition (or point"
              + " postgres.url at its database)",
          e);
    }
    return new BackfillException("cannot read " + copy.table() + ": " + e.getMessage(), e);
  }
}
