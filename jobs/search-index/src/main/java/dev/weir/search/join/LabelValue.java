package dev.weir.search.join;

import dev.weir.common.types.Utf8StringTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The value of one child label of one parent row, as the {@link EdgeJoin} of that edge and join
 * value has it: an object or a scalar (one_to_one, or null), or a list (one_to_many).
 */
public class LabelValue {
  /** The parent node. */
  public int node;

  public String parentKey;

  /** The child node: which label. */
  public int edge;

  /** The join value this is the value at: the parent ignores it if its row has another by now. */
  public String joinValue;

  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String value;

  public long stamp;

  /**
   * The event time of the newest source change this reflects (a change's commit time): the
   * watermark passing it means every change made until then has been read ({@link
   * DocumentAssembler}).
   */
  public long time = Long.MIN_VALUE;

  /**
   * The stamp the parent row had when it joined the edge at this join value: a deleted row drops
   * the labels it had joined before its deletion, and keeps those of its coming back.
   */
  public long registered;

  public LabelValue() {}

  public String stateKey() {
    return node + "/" + parentKey;
  }

  @Override
  public String toString() {
    return "label " + edge + " of " + stateKey() + " from " + joinValue + " @" + stamp;
  }
}
