package dev.weir.feed;

import dev.weir.common.config.WeirConfig;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;

/**
 * The collation rule and its bounds, in milliseconds, and how many keys the collator holds in
 * memory between checkpoints.
 */
public record FeedSettings(
    long gapMs,
    long maxSpanMs,
    long outOfOrdernessMs,
    long maxStalenessMs,
    long archiveAfterMs,
    int recentDetails,
    long dedupeWindowMs,
    int heldKeys)
    implements Serializable {

  public FeedSettings {
    if (gapMs <= 0
        || maxSpanMs < gapMs
        || outOfOrdernessMs < 0
        || maxStalenessMs <= 0
        || archiveAfterMs <= 0
        || recentDetails < 1
        || dedupeWindowMs <= 0
        || heldKeys < 1) {
      throw new IllegalArgumentException(
          "invalid feed settings: gap > 0, max-span >= gap, out-of-orderness >= 0,"
              + " max-staleness > 0, archive-after > 0, recent-details >= 1, dedupe-window > 0,"
              + " held-keys >= 1; got "
              + this);
    }
  }

  public static FeedSettings from(WeirConfig config) {
    return new FeedSettings(
        ms(config.get(FeedOptions.GAP)),
        ms(config.get(FeedOptions.MAX_SPAN)),
        ms(config.get(FeedOptions.OUT_OF_ORDERNESS)),
        ms(config.get(FeedOptions.MAX_STALENESS)),
        ms(config.get(FeedOptions.ARCHIVE_AFTER)),
        config.get(FeedOptions.RECENT_DETAILS),
        ms(config.get(FeedOptions.DEDUPE_WINDOW)),
        config.get(FeedOptions.HELD_KEYS));
  }

  public static FeedSettings defaults() {
    return from(WeirConfig.from(Map.of(), Map.of()));
  }

  /** How long the collator lets changes of one key accumulate before emitting them. */
  long coalesceMs() {
    return Math.max(1, maxStalenessMs / 2);
  }

  /** How long the store may hold a batch of writes (the rest of the staleness budget). */
  public long storeFlushMs() {
    return Math.max(1, maxStalenessMs / 4);
  }

  private static long ms(Duration d) {
    return d.toMillis();
  }
}
