package dev.weir.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weir.feed.CollationKey;
import dev.weir.feed.FeedEntry;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The feed entries a GH Archive file should produce, computed the plain way, independently of the
 * job: read every line, sort by time, and walk each key's events with the gap / max-span rule.
 */
final class ExpectedFeed {

  record Entry(
      String entryId,
      String workspaceId,
      String actorId,
      String elementId,
      String action,
      Instant firstAt,
      Instant lastAt,
      int eventCount) {
    String row() {
      return String.join(
          "|",
          entryId,
          workspaceId,
          actorId,
          "repository",
          elementId,
          action,
          firstAt.toString(),
          lastAt.toString(),
          Integer.toString(eventCount));
    }
  }

  private record Event(
      String id, String workspace, String actor, String repo, String action, Instant at) {}

  static List<Entry> compute(InputStream ndjson, long gapMs, long maxSpanMs) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<Event> events = new ArrayList<>();
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(ndjson, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode e = json.readTree(line);
        String repo = e.get("repo").get("name").asText();
        String type =
            e.get("type")
                .asText()
                .replaceAll("Event$", "")
                .replaceAll("([a-z0-9])([A-Z])", "$1_$2")
                .toLowerCase(Locale.ROOT);
        JsonNode payloadAction = e.path("payload").path("action");
        String action = payloadAction.isTextual() ? type + "." + payloadAction.asText() : type;
        events.add(
            new Event(
                e.get("id").asText(),
                repo.substring(0, repo.indexOf('/')),
                e.get("actor").get("login").asText(),
                repo,
                action,
                Instant.parse(e.get("created_at").asText())));
      }
    }
    events.sort(Comparator.comparing(Event::at).thenComparing(Event::id));
    Map<List<String>, Entry> open = new HashMap<>();
    Map<String, Entry> all = new LinkedHashMap<>();
    for (Event e : events) {
      List<String> key = List.of(e.workspace(), e.actor(), e.repo(), e.action());
      Entry current = open.get(key);
      long at = e.at().toEpochMilli();
      if (current != null
          && at - current.lastAt().toEpochMilli() <= gapMs
          && at - current.firstAt().toEpochMilli() <= maxSpanMs) {
        current =
            new Entry(
                current.entryId(),
                current.workspaceId(),
                current.actorId(),
                current.elementId(),
                current.action(),
                current.firstAt(),
                e.at(),
                current.eventCount() + 1);
      } else {
        String id =
            FeedEntry.entryId(
                new CollationKey(e.workspace(), e.actor(), "repository", e.repo(), e.action()),
                at,
                e.id());
        current = new Entry(id, e.workspace(), e.actor(), e.repo(), e.action(), e.at(), e.at(), 1);
      }
      open.put(key, current);
      all.put(current.entryId(), current);
    }
    return new ArrayList<>(all.values());
  }

  private ExpectedFeed() {}
}
