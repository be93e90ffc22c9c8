package dev.weir.feed;

import dev.weir.schema.ActivityEvent;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * The {@link Collator} as the job runs it: its keys' clocks held between checkpoints ({@link
 * ClockCache}). A function cannot set the current key to write a held clock back; its operator can,
 * and hands itself over for that.
 */
public final class CollatorOperator
    extends KeyedProcessOperator<CollationKey, ActivityEvent, FeedWrite> {

  private static final long serialVersionUID = 1L;

  private final int capacity;

  /** Holding as many keys as the collator's settings say ({@code feed.held-keys}). */
  public CollatorOperator(Collator collator) {
    this(collator, collator.settings().heldKeys());
  }

  CollatorOperator(Collator collator, int capacity) {
    super(collator);
    this.capacity = capacity;
  }

  @Override
  public void open() throws Exception {
    super.open();
    ((Collator) userFunction).holdClocks(this, capacity);
  }
}
