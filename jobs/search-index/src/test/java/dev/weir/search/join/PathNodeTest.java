package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A category path ({@code weir.path}): the names from the root category down to a product's, kept
 * right through renames and moves anywhere up the tree, and cut at {@code max_depth} (a cycle).
 */
class PathNodeTest {

  private static final String DEFINITION =
      """
      [{"database": "catalog", "index": "products", "nodes": {
        "table": "product", "columns": ["id", "name"],
        "children": [
          {"table": "category", "label": "category_path", "columns": ["name"],
           "relationship": {"type": "one_to_one", "variant": "scalar"},
           "weir": {"path": {"parent": ["parent_id"], "max_depth": 4}}}]}}]
      """;

  private final Map<String, TableInfo> tables =
      Map.of(
          "product",
          TableInfo.of(
              "public",
              "product",
              Map.of("id", "bigint", "name", "text", "category_id", "bigint"),
              List.of("id"),
              List.of(
                  new TableInfo.ForeignKey(
                      List.of("category_id"), "public", "category", List.of("id")))),
          "category",
          TableInfo.of(
              "public",
              "category",
              Map.of("id", "bigint", "name", "text", "parent_id", "bigint"),
              List.of("id"),
              List.of(
                  new TableInfo.ForeignKey(
                      List.of("parent_id"), "public", "category", List.of("id")))));
  private final DocumentPlan plan =
      DocumentPlanner.plan(
          DefinitionFile.parse(DEFINITION).get(0),
          (schema, table) -> Optional.ofNullable(tables.get(table)));
  private final ReferenceJoin db = new ReferenceJoin(plan);
  private JoinSimulator join;
  private long lsn;

  @AfterEach
  void close() throws Exception {
    join.close();
  }

  @Test
  void thePathFollowsRenamesAndMovesAnywhereUpTheTree() throws Exception {
    join = new JoinSimulator(plan, 3);
    category(1, "Outdoor", null);
    category(11, "Hiking", 1L);
    category(111, "Backpacks", 11L);
    category(2, "Travel", null);
    product(7, "Trail Pack", 111);
    assertThat(path(7)).isEqualTo("[\"Outdoor\",\"Hiking\",\"Backpacks\"]");

    category(1, "Outdoors", null);
    assertThat(path(7)).isEqualTo("[\"Outdoors\",\"Hiking\",\"Backpacks\"]");
    category(11, "Hiking", 2L);
    assertThat(path(7)).isEqualTo("[\"Travel\",\"Hiking\",\"Backpacks\"]");
  }

  @Test
  void aCycleIsCutAtTheMaximumDepth() throws Exception {
    join = new JoinSimulator(plan, 4);
    category(1, "A", 2L);
    category(2, "B", 1L);
    product(7, "Loop", 1);
    assertThat(path(7)).isEqualTo("[\"B\",\"A\",\"B\",\"A\"]");
  }

  @Test
  void randomMovesAndRenamesConvergeToThePlainJoin() throws Exception {
    join = new JoinSimulator(plan, 5);
    Random random = new Random(5);
    for (int i = 0; i < 400; i++) {
      if (random.nextInt(4) == 0) {
        product(random.nextInt(5), "p" + i, random.nextInt(8));
      } else {
        long parent = random.nextInt(9);
        category(random.nextInt(8), "c" + i, parent == 8 ? null : parent);
      }
    }
    join.runUntilQuiet();
    Map<String, JsonNode> actual = new TreeMap<>();
    for (var e : join.documents().entrySet()) {
      actual.put(e.getKey(), ReferenceJoin.asObject(plan, e.getValue()));
    }
    assertThat(actual).isEqualTo(db.documents());
  }

  private String path(long product) throws Exception {
    join.runUntilQuiet();
    return ReferenceJoin.asObject(plan, join.documents().get(Long.toString(product)))
        .get("category_path")
        .toString();
  }

  // Values as the join's JSON reads them back (small integers are ints), so documents compare.
  private void category(long id, String name, Long parent) throws Exception {
    ObjectNode row = JsonNodeFactory.instance.objectNode().put("id", (int) id).put("name", name);
    if (parent == null) {
      row.putNull("parent_id");
    } else {
      row.put("parent_id", parent.intValue());
    }
    join.send(db.apply("public.category", row, false, ++lsn));
  }

  private void product(long id, String name, long category) throws Exception {
    ObjectNode row =
        JsonNodeFactory.instance
            .objectNode()
            .put("id", (int) id)
            .put("name", name)
            .put("category_id", (int) category);
    join.send(db.apply("public.product", row, false, ++lsn));
  }
}
