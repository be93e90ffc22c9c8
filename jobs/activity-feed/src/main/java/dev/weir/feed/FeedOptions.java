package dev.weir.feed;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The activity-feed job's options (besides the shared ones in WeirOptions). */
public final class FeedOptions {

  public static final ConfigOption<String> TOPIC =
      ConfigOptions.key("feed.topic")
          .stringType()
          .defaultValue("activity.events")
          .withDescription("The input topic.");

  public static final ConfigOption<Duration> GAP =
      ConfigOptions.key("feed.gap")
          .durationType()
          .defaultValue(Duration.ofMinutes(10))
          .withDescription(
              "An event joins its key's open entry if it is at most this long after the entry's last event.");

  public static final ConfigOption<Duration> MAX_SPAN =
      ConfigOptions.key("feed.max-span")
          .durationType()
          .defaultValue(Duration.ofHours(1))
          .withDescription("... and at most this long after the entry's first event.");

  public static final ConfigOption<Duration> OUT_OF_ORDERNESS =
      ConfigOptions.key("feed.out-of-orderness")
          .durationType()
          .defaultValue(Duration.ofSeconds(5))
          .withDescription("Events this much out of order give the same entries as sorted input.");

  public static final ConfigOption<Duration> MAX_STALENESS =
      ConfigOptions.key("feed.max-staleness")
          .durationType()
          .defaultValue(Duration.ofSeconds(2))
          .withDescription(
              "Longest time a collated change waits before its row write (coalescing bound).");

  public static final ConfigOption<Duration> ARCHIVE_AFTER =
      ConfigOptions.key("feed.archive-after")
          .durationType()
          .defaultValue(Duration.ofDays(30))
          .withDescription(
              "An entry moves to feed_archive once the event-time watermark is this far past its last event.");

  public static final ConfigOption<Integer> RECENT_DETAILS =
      ConfigOptions.key("feed.recent-details")
          .intType()
          .defaultValue(5)
          .withDescription("How many of an entry's most recent details it keeps.");

  public static final ConfigOption<Duration> DEDUPE_WINDOW =
      ConfigOptions.key("feed.dedupe-window")
          .durationType()
          .defaultValue(Duration.ofDays(1))
          .withDescription(
              "How long after its entry's last event an event id is remembered, so that a duplicate"
                  + " counts once. It bounds the collator's state per key to the ids of this window"
                  + " (docs/state.md); a duplicate arriving later counts again.");

  public static final ConfigOption<Integer> HELD_KEYS =
      ConfigOptions.key("feed.held-keys")
          .intType()
          .defaultValue(100_000)
          .withDescription(
              "Keys whose bookkeeping the collator holds in memory between checkpoints, and"
                  + " waiting events it holds at most as many of; then all are written to RocksDB"
                  + " early. A key still held when its release and its coalesced write come saves a"
                  + " RocksDB read and write each. What it costs in heap, and saves in time:"
                  + " docs/state.md.");

  private FeedOptions() {}
}
