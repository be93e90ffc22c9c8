package dev.weir.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.Json;
import dev.weir.schema.RawJsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FeedEntryTest {

  @Test
  void quoteEscapesAsJacksonDoes() throws Exception {
    for (String s :
        List.of(
            "",
            "plain",
            "q\"uote",
            "back\\slash",
            "tab\tnew\nline",
            "\u0001ctl",
            "é ✓ 😀",
            "a/b")) {
      assertThat(FeedEntry.quote(s)).isEqualTo(Json.mapper().writeValueAsString(s));
    }
  }

  @Test
  void recentDetailsAreTheJsonbArrayOfTheDetails() throws Exception {
    FeedEntry e = new FeedEntry();
    e.recentDetails.add(new FeedEntry.Detail(1_000, "e\"2", "{\"n\":2}"));
    e.recentDetails.add(new FeedEntry.Detail(0, "e1", null));
    assertThat(Json.mapper().readTree(e.recentDetailsJson()))
        .isEqualTo(
            Json.mapper()
                .readTree(
                    "[{\"at\":\"1970-01-01T00:00:01Z\",\"event_id\":\"e\\\"2\",\"details\":{\"n\":2}},"
                        + "{\"at\":\"1970-01-01T00:00:00Z\",\"event_id\":\"e1\",\"details\":null}]"));
  }

  @Test
  void aDetailIsTheSameTextWhicheverWayItsEventWasDecoded() throws Exception {
    String json =
        "{\"event_id\":\"e1\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":\"t\","
            + "\"element_id\":\"r\",\"action\":\"push\",\"occurred_at\":\"2026-11-23T05:00:00Z\","
            + "\"details\": {\"branch\": \"ma\\u0069n\", \"n\": 7, \"ok\": true}}";
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    EventCodec<ActivityEvent> codec =
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
    ActivityEvent streamed = codec.decode(bytes);
    ActivityEvent bound = codec.decode(Json.mapper().readTree(bytes));

    assertThat(streamed.details()).isInstanceOf(RawJsonObject.class);
    assertThat(bound.details()).isNotInstanceOf(RawJsonObject.class);
    assertThat(FeedEntry.Detail.of(streamed).json)
        .isEqualTo(FeedEntry.Detail.of(bound).json)
        .isEqualTo("{\"branch\":\"main\",\"n\":7,\"ok\":true}");
  }

  @Test
  void diffNamesRecentDetailsExactlyWhenTheirJsonDiffers() {
    FeedEntry a = new FeedEntry();
    a.recentDetails.add(new FeedEntry.Detail(0, "e1", "{}"));
    FeedEntry same = a.copy();
    same.recentDetails = List.of(new FeedEntry.Detail(0, "e1", "{}"));
    assertThat(FeedEntry.diff(a, same)).isZero();
    for (FeedEntry.Detail other :
        List.of(
            new FeedEntry.Detail(1, "e1", "{}"),
            new FeedEntry.Detail(0, "e2", "{}"),
            new FeedEntry.Detail(0, "e1", null),
            new FeedEntry.Detail(0, "e1", "{\"n\":1}"))) {
      FeedEntry b = a.copy();
      b.recentDetails = List.of(other);
      assertThat(FeedEntry.diff(a, b)).isEqualTo(FeedEntry.RECENT_DETAILS);
      assertThat(a.recentDetailsJson()).isNotEqualTo(b.recentDetailsJson());
    }
    FeedEntry longer = a.copy();
    longer.recentDetails.add(new FeedEntry.Detail(0, "e0", null));
    assertThat(FeedEntry.diff(a, longer)).isEqualTo(FeedEntry.RECENT_DETAILS);
  }
}
