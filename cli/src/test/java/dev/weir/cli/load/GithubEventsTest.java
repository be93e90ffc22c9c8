package dev.weir.cli.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class GithubEventsTest {

  @Test
  void mapsAPullRequestEvent() throws Exception {
    ActivityEvent event =
        GithubEvents.toActivityEvent(
            "{\"id\":\"17\",\"type\":\"PullRequestEvent\",\"actor\":{\"login\":\"ana\"},\"repo\":{\"name\":\"apache/flink\"},"
                + "\"payload\":{\"action\":\"opened\",\"number\":12,\"pull_request\":{\"title\":\"Fix it\"}},\"created_at\":\"2021-07-21T06:00:01Z\"}");
    assertThat(event)
        .isEqualTo(
            new ActivityEvent(
                "17",
                "apache",
                "ana",
                "repository",
                "apache/flink",
                "pull_request.opened",
                Instant.parse("2021-07-21T06:00:01Z"),
                Map.of("number", 12L, "title", "Fix it")));
  }

  @Test
  void actionIsTheSnakeCaseTypePlusThePayloadAction() {
    assertThat(GithubEvents.action("PushEvent", null)).isEqualTo("push");
    assertThat(GithubEvents.action("IssueCommentEvent", "created"))
        .isEqualTo("issue_comment.created");
    assertThat(GithubEvents.action("PullRequestReviewCommentEvent", "created"))
        .isEqualTo("pull_request_review_comment.created");
  }

  @Test
  void everyBundledSampleEventMapsOntoAValidActivityEvent() throws Exception {
    EventCodec<ActivityEvent> codec =
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
    List<String> lines;
    try (var reader =
        new BufferedReader(
            new InputStreamReader(
                getClass()
                    .getClassLoader()
                    .getResourceAsStream("weir/samples/github-events-2021-07-21.ndjson"),
                StandardCharsets.UTF_8))) {
      lines = reader.lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
    }
    assertThat(lines).hasSize(369);
    for (String line : lines) {
      ActivityEvent event = GithubEvents.toActivityEvent(line);
      byte[] written = codec.encode(event);
      // decode validates against the schema; the same JSON comes back out.
      assertThat(codec.encode(codec.decode(written))).isEqualTo(written);
    }
  }
}
