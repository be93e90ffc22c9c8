package dev.weir.search.join;

/** What an assembler receives: its node's row, or the value of one of its child labels. */
public class AssemblerInput {
  public NodeRow row;
  public LabelValue label;

  public AssemblerInput() {}

  public static AssemblerInput of(NodeRow row) {
    AssemblerInput in = new AssemblerInput();
    in.row = row;
    return in;
  }

  public static AssemblerInput of(LabelValue label) {
    AssemblerInput in = new AssemblerInput();
    in.label = label;
    return in;
  }

  public String stateKey() {
    return row != null ? row.stateKey() : label.stateKey();
  }

  @Override
  public String toString() {
    return String.valueOf(row != null ? row : label);
  }
}
