package dev.weir.feed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.IsoInstant;
import dev.weir.schema.Json;
import dev.weir.schema.RawJsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * One feed entry as the job holds it in state. Setters record which columns changed since the last
 * write, so that the store names only those.
 */
public class FeedEntry {

  /** Columns of feed_entry that change after an entry is created. */
  public static final int FIRST_AT = 1;

  public static final int LAST_AT = 2;
  public static final int EVENT_COUNT = 4;
  public static final int RECENT_DETAILS = 8;

  public static final int ALL_CHANGING = FIRST_AT | LAST_AT | EVENT_COUNT | RECENT_DETAILS;

  // Public fields and a no-arg constructor: a Flink POJO, so state evolves with the type.
  public String workspaceId;
  public String entryId;
  public String actorId;
  public String elementType;
  public String elementId;
  public String action;
  public long firstAt;
  public long lastAt;
  public int eventCount;

  /** Newest first, at most the configured number. */
  public List<Detail> recentDetails = new ArrayList<>();

  /** Whether the row exists in the store (written at least once). */
  public boolean stored;

  /** Bitmask of columns changed since the last write. */
  public int changed;

  /**
   * When this entry's (single) event-time timer fires: its ids forgotten, then its archival (the
   * name is from before the first). State bookkeeping, not a column.
   */
  public long archiveTimerAt;

  public FeedEntry() {}

  public static FeedEntry open(CollationKey key, long at, String eventId) {
    FeedEntry e = new FeedEntry();
    e.workspaceId = key.workspaceId();
    e.actorId = key.actorId();
    e.elementType = key.elementType();
    e.elementId = key.elementId();
    e.action = key.action();
    e.entryId = entryId(key, at, eventId);
    e.firstAt = at;
    e.lastAt = at;
    e.eventCount = 0;
    return e;
  }

  /**
   * Deterministic: the same key and opening event give the same id, so a replay of the same input
   * writes the same rows.
   */
  public static String entryId(CollationKey key, long firstAt, String firstEventId) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part :
          new String[] {
            key.workspaceId(),
            key.actorId(),
            key.elementType(),
            key.elementId(),
            key.action(),
            Long.toString(firstAt),
            firstEventId
          }) {
        sha.update(part.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  void setFirstAt(long at) {
    if (at != firstAt) {
      firstAt = at;
      changed |= FIRST_AT;
    }
  }

  public void setLastAt(long at) {
    if (at != lastAt) {
      lastAt = at;
      changed |= LAST_AT;
    }
  }

  public void incrementCount() {
    eventCount++;
    changed |= EVENT_COUNT;
  }

  /** The columns whose values differ between two versions of one entry. */
  static int diff(FeedEntry before, FeedEntry after) {
    int columns = 0;
    if (before.firstAt != after.firstAt) {
      columns |= FIRST_AT;
    }
    if (before.lastAt != after.lastAt) {
      columns |= LAST_AT;
    }
    if (before.eventCount != after.eventCount) {
      columns |= EVENT_COUNT;
    }
    if (!sameDetails(before.recentDetails, after.recentDetails)) {
      columns |= RECENT_DETAILS;
    }
    return columns;
  }

  /**
   * Whether two detail lists write the same recent_details, compared field by field rather than by
   * building both JSON arrays: it runs for every entry each flush looks at.
   */
  static boolean sameDetails(List<Detail> a, List<Detail> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Detail x = a.get(i);
      Detail y = b.get(i);
      if (x.at != y.at || !x.eventId.equals(y.eventId) || !Objects.equals(x.json, y.json)) {
        return false;
      }
    }
    return true;
  }

  /** Only the row's key: what a retraction needs. */
  static FeedEntry keyOnly(String workspaceId, String entryId) {
    FeedEntry e = new FeedEntry();
    e.workspaceId = workspaceId;
    e.entryId = entryId;
    return e;
  }

  /** Keeps the newest {@code max} details by event time (ties by event id). */
  public void addDetail(Detail detail, int max) {
    int position = 0;
    while (position < recentDetails.size() && recentDetails.get(position).newerThan(detail)) {
      position++;
    }
    if (position >= max) {
      return;
    }
    recentDetails.add(position, detail);
    while (recentDetails.size() > max) {
      recentDetails.remove(recentDetails.size() - 1);
    }
    changed |= RECENT_DETAILS;
  }

  /** One event's small context, as kept in recent_details. */
  public static class Detail {

    public static Detail of(ActivityEvent event) {
      return new Detail(event.occurredAt().toEpochMilli(), event.eventId(), json(event));
    }

    /** The details as Jackson writes them: what the decoder kept, or the map written now. */
    private static String json(ActivityEvent event) {
      if (event.details() == null) {
        return null;
      }
      if (event.details() instanceof RawJsonObject raw) {
        return new String(raw.json(), StandardCharsets.UTF_8);
      }
      try {
        return Json.mapper().writeValueAsString(event.details());
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("details of event " + event.eventId(), e);
      }
    }

    public long at;
    public String eventId;

    /** The event's details object as JSON, or null. */
    public String json;

    public Detail() {}

    Detail(long at, String eventId, String json) {
      this.at = at;
      this.eventId = eventId;
      this.json = json;
    }

    boolean newerThan(Detail other) {
      return at != other.at ? at > other.at : eventId.compareTo(other.eventId) > 0;
    }

    String toJson() {
      StringBuilder out = new StringBuilder(64 + eventId.length());
      appendJson(out);
      return out.toString();
    }

    void appendJson(StringBuilder out) {
      out.append("{\"at\":\"");
      IsoInstant.append(out, Instant.ofEpochMilli(at)); // nothing in it to escape
      out.append('"');
      out.append(",\"event_id\":");
      appendQuoted(out, eventId);
      out.append(",\"details\":").append(json == null ? "null" : json).append('}');
    }
  }

  /** A JSON string literal, escaped as Jackson writes it (without a generator per string). */
  static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2);
    appendQuoted(out, s);
    return out.toString();
  }

  private static void appendQuoted(StringBuilder out, String s) {
    out.append('"');
    JsonStringEncoder.getInstance().quoteAsString(s, out);
    out.append('"');
  }

  FeedEntry copy() {
    FeedEntry c = new FeedEntry();
    c.workspaceId = workspaceId;
    c.entryId = entryId;
    c.actorId = actorId;
    c.elementType = elementType;
    c.elementId = elementId;
    c.action = action;
    c.firstAt = firstAt;
    c.lastAt = lastAt;
    c.eventCount = eventCount;
    c.recentDetails = new ArrayList<>(recentDetails);
    c.stored = stored;
    c.changed = changed;
    c.archiveTimerAt = archiveTimerAt;
    return c;
  }

  /** recent_details as the jsonb array written to the store. */
  public String recentDetailsJson() {
    StringBuilder json = new StringBuilder(128 * recentDetails.size() + 2).append('[');
    for (int i = 0; i < recentDetails.size(); i++) {
      if (i > 0) {
        json.append(',');
      }
      recentDetails.get(i).appendJson(json);
    }
    return json.append(']').toString();
  }

  @Override
  public String toString() {
    return entryId
        + "["
        + workspaceId
        + "/"
        + actorId
        + "/"
        + elementId
        + "/"
        + action
        + " "
        + firstAt
        + ".."
        + lastAt
        + " x"
        + eventCount
        + "]";
  }
}
