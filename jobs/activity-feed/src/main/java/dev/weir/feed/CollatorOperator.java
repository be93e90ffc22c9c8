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

  /**
   * Keys held at most (and ten times as many waiting events): a few MB, and tens at most. The
   * events of a burst come a few dozen records apart at replay speed, and wait seconds.
   */
  static final int HELD_CLOCKS = 10_000;

  private final int capacity;

  public CollatorOperator(Collator collator) {
    this(collator, HELD_CLOCKS);
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
