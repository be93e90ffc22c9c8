package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import dev.weir.search.join.DocumentJoin;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The search-index job's options (besides WeirOptions and DocumentOptions). */
public final class SearchIndexOptions {

  public static final ConfigOption<Duration> WRITE_FLUSH =
      ConfigOptions.key("search.write-flush")
          .durationType()
          .defaultValue(Duration.ofMillis(500))
          .withDescription(
              "How long writes to the copy table may wait to be batched (also at each checkpoint).");

  public static final ConfigOption<Duration> INDEX_FLUSH =
      ConfigOptions.key("search.index-flush")
          .durationType()
          .defaultValue(Duration.ofMillis(500))
          .withDescription("How long a partial Elasticsearch bulk may wait.");

  public static final ConfigOption<Duration> COALESCE =
      ConfigOptions.key("search.coalesce")
          .durationType()
          .defaultValue(Duration.ofMillis(200))
          .withDescription(
              "How long the join gathers changes of one row or document"
                  + " before passing it on (a burst of changes makes one write).");

  public static final ConfigOption<Duration> CHANGE_LAG =
      ConfigOptions.key("search.change-lag")
          .durationType()
          .defaultValue(Duration.ofSeconds(1))
          .withDescription(
              "How long after its commit a change reaches its topic, at most,"
                  + " and how long a topic with nothing to read waits before it counts as caught"
                  + " up. A document is written once every topic has been read up to the changes it"
                  + " holds, so a backlog or a replay from the start is written in the order it was"
                  + " made; a quiet job writes a change about this long after it arrives. A later"
                  + " change is still applied.");

  public static final ConfigOption<Integer> SOURCE_EPOCH =
      ConfigOptions.key("search.source-epoch")
          .intType()
          .defaultValue(0)
          .withDescription(
              "Raise it (by one, up to 127) when the source database moves to"
                  + " a new PostgreSQL cluster and is captured without a new snapshot: its LSNs"
                  + " start lower, and changes would otherwise look older than those held.");

  public static final ConfigOption<Duration> TOMBSTONE_TTL =
      ConfigOptions.key("search.tombstone-ttl")
          .durationType()
          .defaultValue(Duration.ofDays(7))
          .withDescription(
              "How long the join remembers a deleted row's last stamp and a deleted document's"
                  + " version (to recognize a late re-delivery).");

  /** The value of a duration option that must be at least 1 ms, or a clear error. */
  static Duration positive(WeirConfig config, ConfigOption<Duration> option) {
    Duration value = config.get(option);
    if (value.toMillis() < 1) {
      throw new IllegalArgumentException(
          option.key() + " must be at least 1 ms, not " + value.toMillis() + " ms");
    }
    return value;
  }

  /** The join's settings from {@code config}. */
  static DocumentJoin.Settings joinSettings(WeirConfig config) {
    return new DocumentJoin.Settings(
        positive(config, COALESCE), config.get(SOURCE_EPOCH), config.get(TOMBSTONE_TTL));
  }

  private SearchIndexOptions() {}
}
