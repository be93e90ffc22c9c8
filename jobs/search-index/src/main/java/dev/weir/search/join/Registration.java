package dev.weir.search.join;

/**
 * A parent row joining ({@code add}) or leaving the rows of one child edge whose join value is
 * {@code joinValue}: what tells an {@link EdgeJoin} where to send the children's value.
 */
public class Registration {
  /** The child node of the edge. */
  public int edge;

  public String joinValue;
  public String parentKey;
  public boolean add;

  /** The parent row's stamp when it joined: labels answering it carry it ({@link LabelValue}). */
  public long stamp;

  /** The event time of the parent row's change ({@link SourceRow#time}). */
  public long time = Long.MIN_VALUE;

  public Registration() {}

  public static Registration of(
      int edge, String joinValue, String parentKey, boolean add, long stamp, long time) {
    Registration r = new Registration();
    r.time = time;
    r.edge = edge;
    r.joinValue = joinValue;
    r.parentKey = parentKey;
    r.add = add;
    r.stamp = stamp;
    return r;
  }

  public String stateKey() {
    return edge + "/" + joinValue;
  }

  @Override
  public String toString() {
    return (add ? "+" : "-") + parentKey + " at " + stateKey();
  }
}
