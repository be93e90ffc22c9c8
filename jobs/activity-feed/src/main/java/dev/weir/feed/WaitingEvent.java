package dev.weir.feed;

import dev.weir.schema.ActivityEvent;

/** An event waiting for the watermark, with the processing time it arrived at. */
public class WaitingEvent {
  public ActivityEvent event;
  public long arrivedAt;

  /** Whether an event older than this one arrived after it (it may have been shown early). */
  public boolean overtaken;

  public WaitingEvent() {}

  WaitingEvent(ActivityEvent event, long arrivedAt) {
    this.event = event;
    this.arrivedAt = arrivedAt;
  }

  /** Its event time. */
  long at() {
    return event.occurredAt().toEpochMilli();
  }
}
