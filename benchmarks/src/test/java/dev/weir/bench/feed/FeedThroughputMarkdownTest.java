package dev.weir.bench.feed;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The sentences of activity-feed's steady-state results. */
class FeedThroughputMarkdownTest {

  @Test
  void comparesTheKeysHeldWithATenthOfThemInTheSameRun() {
    // 30,000 events/s at 10 µs of CPU per event against 20,000 at 15.
    assertThat(FeedThroughputMarkdown.heldKeysSentence(FeedThroughputReports.report()))
        .startsWith(
            "Keys held: with `feed.held-keys` at 10,000 instead of its default 100,000 weir read"
                + " 20,000 events/s, 0.67× its rate, at 15 against 10 µs of CPU per event");
  }
}
