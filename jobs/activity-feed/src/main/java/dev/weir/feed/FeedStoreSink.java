package dev.weir.feed;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.sink.BufferedStoreSink;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The feed store as a Flink sink: writes of one entry are folded into one, and a batch is flushed
 * within the store's share of the staleness bound (see {@link BufferedStoreSink}).
 */
public final class FeedStoreSink {

  private static final int MAX_BUFFERED = 1000;

  private FeedStoreSink() {}

  public static BufferedStoreSink<FeedWrite> create(WeirConfig config, FeedSettings settings) {
    return new BufferedStoreSink<>(
        "the feed store at " + config.get(WeirOptions.POSTGRES_URL),
        () -> openStore(config),
        w -> w.entry.workspaceId + "\u0000" + w.entry.entryId,
        FeedWrite::then,
        settings.storeFlushMs(),
        MAX_BUFFERED,
        PostgresTimeouts.of(config));
  }

  /**
   * The hot store at postgres.url, the archive at archive.postgres.url (one connection if the
   * same).
   */
  public static FeedStore openStore(WeirConfig config) throws SQLException {
    String hotUrl = config.get(WeirOptions.POSTGRES_URL);
    String archiveUrl = Migrations.archiveUrl(config);
    Connection hot = PostgresConnectionProvider.open(config, hotUrl);
    Connection archive =
        archiveUrl.equals(hotUrl) ? hot : PostgresConnectionProvider.open(config, archiveUrl);
    return new FeedStore(hot, archive);
  }
}
