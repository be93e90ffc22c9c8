package dev.weir.documents.definition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The order in which an initial snapshot reads the tables of some documents: every table before the
 * tables of its parent nodes, the roots last. The join holds what it assembles until it has read
 * what was captured before ({@code search-index}'s event time), so a document whose children were
 * all read first is written once, complete; read root first, it is written again as each child
 * table arrives. (Flink CDC reads the last, open-ended chunk of every table first, in the opposite
 * order: the documents of the root table's last chunk are still written as their children arrive.)
 *
 * <p>A table that is the child of its own node (a tree such as a category's parent) or of a table
 * it is itself a child of in another document cannot come first for both: such a cycle is broken by
 * depth, deepest first.
 */
public final class SnapshotOrder {

  private SnapshotOrder() {}

  /** {@code tables} ({@code schema.table}) of {@code plans}, children before their parents. */
  public static List<String> childrenFirst(List<DocumentPlan> plans, Collection<String> tables) {
    Map<String, Set<String>> children = new HashMap<>();
    Map<String, Integer> depth = new HashMap<>();
    for (String table : tables) {
      children.put(table, new HashSet<>());
      depth.put(table, 0);
    }
    for (DocumentPlan plan : plans) {
      for (DocumentPlan.Node node : plan.nodes()) {
        depth.computeIfPresent(node.source(), (t, d) -> Math.max(d, node.depth()));
        if (!node.isRoot()) {
          String parent = plan.node(node.parent()).source();
          if (children.containsKey(parent)
              && children.containsKey(node.source())
              && !parent.equals(node.source())) {
            children.get(parent).add(node.source());
          }
        }
      }
    }
    Comparator<String> deepestFirst =
        Comparator.<String>comparingInt(depth::get).reversed().thenComparing(t -> t);
    List<String> order = new ArrayList<>();
    Set<String> left = new HashSet<>(children.keySet());
    while (!left.isEmpty()) {
      String next =
          left.stream()
              .filter(t -> order.containsAll(children.get(t)))
              .min(deepestFirst)
              .orElseGet(() -> left.stream().min(deepestFirst).orElseThrow());
      order.add(next);
      left.remove(next);
    }
    return order;
  }
}
