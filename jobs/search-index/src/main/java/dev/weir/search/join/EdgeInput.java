package dev.weir.search.join;

/** What an {@link EdgeJoin} receives: a child's value, or a parent joining or leaving. */
public class EdgeInput {
  public ChildValue child;
  public Registration registration;

  public EdgeInput() {}

  public static EdgeInput of(ChildValue child) {
    EdgeInput in = new EdgeInput();
    in.child = child;
    return in;
  }

  public static EdgeInput of(Registration registration) {
    EdgeInput in = new EdgeInput();
    in.registration = registration;
    return in;
  }

  public String stateKey() {
    return child != null ? child.stateKey() : registration.stateKey();
  }

  @Override
  public String toString() {
    return String.valueOf(child != null ? child : registration);
  }
}
