package dev.weir.search.join;

import dev.weir.common.types.Utf8StringTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A child row's value (its fields and its own children's, as JSON), at the join value it links to
 * its parent by, or its removal from there: what an assembler sends an {@link EdgeJoin}.
 */
public class ChildValue {
  /** The child node (the edge). */
  public int edge;

  public String joinValue;
  public String childKey;

  @TypeInfo(Utf8StringTypeInfo.Factory.class)
  public String value; // JSON; null when removed

  public boolean removed;
  public long stamp;

  /**
   * The event time of the newest source change this reflects (a change's commit time): the
   * watermark passing it means every change made until then has been read ({@link
   * DocumentAssembler}).
   */
  public long time = Long.MIN_VALUE;

  public ChildValue() {}

  public String stateKey() {
    return edge + "/" + joinValue;
  }

  @Override
  public String toString() {
    return childKey + (removed ? " left " : " at ") + stateKey() + " @" + stamp;
  }
}
