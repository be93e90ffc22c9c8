package dev.weir.documents.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import dev.weir.schema.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * PGSync's transforms, each case one of PGSync's own tests (tests/test_transform.py), its row in
 * and its expected row out: PGSync applies the transforms of every node to the whole document, weir
 * each node's to each of its rows, so a case is checked node by node.
 */
class PgsyncTransformsTest {

  private static final Map<String, TableInfo> TABLES = new LinkedHashMap<>();

  static {
    table(
        "tableau",
        cols(
            "id",
            "text",
            "code",
            "text",
            "level",
            "integer",
            "foo",
            "text[]",
            "bar",
            "jsonb",
            "codes",
            "text[]",
            "name",
            "text",
            "first",
            "text",
            "second",
            "text",
            "third",
            "text",
            "doc",
            "jsonb",
            "price",
            "numeric(10,2)",
            "ratio",
            "double precision",
            "active",
            "boolean"),
        List.of());
    for (String child : List.of("child_1", "child_2", "child_3")) {
      table(
          child,
          cols(
              "id",
              "bigint",
              "tableau_id",
              "text",
              "column_1",
              "integer",
              "column_2",
              "text",
              "column1",
              "integer",
              "column2",
              "text",
              "code",
              "text",
              "name",
              "text"),
          List.of(new ForeignKey(List.of("tableau_id"), "public", "tableau", List.of("id"))));
    }
  }

  // --- rename: test_transform_rename, test_rename_fields, test_rename_with_none_value

  @Test
  void renameRenamesTheRootsAndEachChildsFields() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "code", "level", "foo", "bar"],
             "transform": {"rename": {"id": "my_id", "code": "my_code", "level": "levelup",
                                      "foo": "foos", "bar": "bars"}},
             "children": [
               {"table": "child_1", "label": "Child1", "columns": ["column_1", "column_2"],
                "relationship": {"variant": "object", "type": "one_to_one"},
                "transform": {"rename": {"column_1": "column1"}}},
               {"table": "child_2", "label": "Child2", "columns": ["column_1", "column_2"],
                "relationship": {"variant": "object", "type": "one_to_many"},
                "transform": {"rename": {"column_2": "column2"}}}]}
            """);
    assertThat(
            row(
                plan.root(),
                "{'level': 1, 'id': '007', 'code': 'be', 'foo': ['a', 'b'],"
                    + " 'bar': {'a': 1, 'b': 2}}"))
        .isEqualTo(
            json(
                "{'levelup': 1, 'my_code': 'be', 'my_id': '007', 'foos': ['a', 'b'],"
                    + " 'bars': {'a': 1, 'b': 2}}"));
    assertThat(row(node(plan, "Child1"), "{'column_1': 2, 'column_2': 'aa'}"))
        .isEqualTo(json("{'column1': 2, 'column_2': 'aa'}"));
    assertThat(row(node(plan, "Child2"), "{'column_1': 3, 'column_2': 'bb'}"))
        .isEqualTo(json("{'column2': 'bb', 'column_1': 3}"));
  }

  @Test
  void aRenameNestedUnderAChildsLabelIsThatChilds() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "code", "level"],
             "transform": {"rename": {"id": "my_id", "code": "my_code", "level": "levelup",
                                      "Child1": {"column_1": "column1"}}},
             "children": [
               {"table": "child_1", "label": "Child1", "columns": ["column_1", "column_2"],
                "relationship": {"variant": "object", "type": "one_to_many"}},
               {"table": "child_2", "label": "Child2", "columns": ["column_1", "column_2"],
                "relationship": {"variant": "object", "type": "one_to_many"}}]}
            """);
    assertThat(row(plan.root(), "{'level': 1, 'id': '007', 'code': 'be'}"))
        .isEqualTo(json("{'levelup': 1, 'my_id': '007', 'my_code': 'be'}"));
    assertThat(row(node(plan, "Child1"), "{'column_1': 2, 'column_2': 'aa'}"))
        .isEqualTo(json("{'column1': 2, 'column_2': 'aa'}"));
    assertThat(row(node(plan, "Child2"), "{'column_1': 2, 'column_2': 'aa'}"))
        .isEqualTo(json("{'column_1': 2, 'column_2': 'aa'}"));
  }

  @Test
  void aRenamedNullIsANullUnderItsNewName() {
    DocumentPlan plan =
        plan(
            "{'table': 'tableau', 'columns': ['id', 'code'], 'transform': {'rename': {'code':"
                + " 'my_code'}}}");
    assertThat(row(plan.root(), "{'id': 1, 'code': null}"))
        .isEqualTo(json("{'id': 1, 'my_code': null}"));
  }

  @Test
  void aRenameOfAChildsLabelRenamesItsField() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id"], "transform": {"rename": {"Child1": "first"}},
             "children": [{"table": "child_1", "label": "Child1", "columns": ["column_1"],
                           "relationship": {"variant": "object", "type": "one_to_one"}}]}
            """);
    assertThat(plan.documentFields().get(1).name()).isEqualTo("first");
  }

  @Test
  void aRenameToANumberIsRefusedWhereNotAFieldNameItIs() {
    // PGSync's test renames xxx to 42, a field "42"; weir's names are SQL names.
    refused(
        "{'table': 'tableau', 'columns': ['id'], 'transform': {'rename': {'id': 42}}}",
        "node 'tableau': transform.rename.id must be a field name");
  }

  // --- replace: test_replace_*

  @Test
  void replaceReplacesEachSearchTextInOrderInTextsAndListsOfTexts() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "code", "name", "codes", "level"],
             "transform": {"replace": {"code": {"-": "=", "_": " "}, "name": {"@": " at "},
                                       "codes": {"-": "="}, "level": {"1": "2"}}}}
            """);
    assertThat(
            row(
                plan.root(),
                "{'id': 1, 'code': 'ABC-DEF_GHI', 'name': 'user@example.com',"
                    + " 'codes': ['A-B', 'C-D', null], 'level': 1}"))
        .isEqualTo(
            json(
                "{'id': 1, 'code': 'ABC=DEF GHI', 'name': 'user at example.com',"
                    + " 'codes': ['A=B', 'C=D', null], 'level': 1}"));
  }

  @Test
  void replaceWithNothingOrNoMatch() {
    DocumentPlan plan =
        plan(
            "{'table': 'tableau', 'columns': ['code', 'name'], 'transform': {'replace':"
                + " {'code': {'-': ''}, 'name': {'-': '='}}}}");
    assertThat(row(plan.root(), "{'code': 'A-B-C', 'name': 'ABCDEF'}"))
        .isEqualTo(json("{'code': 'ABC', 'name': 'ABCDEF'}"));
  }

  @Test
  void aReplaceNestedUnderAChildsLabelIsThatChilds() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "code"],
             "transform": {"replace": {"code": {"@": "#"}, "Child1": {"code": {"-": "_"}}}},
             "children": [{"table": "child_1", "label": "Child1", "columns": ["code", "name"],
                           "relationship": {"variant": "object", "type": "one_to_many"}}]}
            """);
    assertThat(row(plan.root(), "{'id': 1, 'code': 'A@B@C'}"))
        .isEqualTo(json("{'id': 1, 'code': 'A#B#C'}"));
    assertThat(row(node(plan, "Child1"), "{'code': 'X-Y-Z', 'name': 'test'}"))
        .isEqualTo(json("{'code': 'X_Y_Z', 'name': 'test'}"));
  }

  @Test
  void aReplaceOfAScalarChildsLabelReplacesInItsValues() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id"],
             "transform": {"replace": {"languages": {"-": "="}}},
             "children": [{"table": "child_1", "label": "languages", "columns": ["code"],
                           "relationship": {"variant": "scalar", "type": "one_to_many"}}]}
            """);
    DocumentPlan.Node languages = node(plan, "languages");
    assertThat(FieldValues.of(languages, column("{'code': 'en-GB'}"))[0]).isEqualTo("\"en=GB\"");
  }

  @Test
  void aTransformGivenBothByTheParentAndTheChildIsRefusedNotOneDropped() {
    refused(
        """
        {'table': 'tableau', 'columns': ['id'],
         'transform': {'rename': {'Child1': {'column_1': 'a'}}},
         'children': [{'table': 'child_1', 'label': 'Child1', 'columns': ['column_1'],
                       'relationship': {'variant': 'object', 'type': 'one_to_one'},
                       'transform': {'rename': {'column_1': 'b'}}}]}
        """,
        "node 'tableau': transform.rename names the child 'Child1', which has a rename of its own");
  }

  // --- concat: test_transform_concat, test_concat_fields, test_concat_*

  @Test
  void concatJoinsFieldsAndLiteralsLeavingOutWhatPythonTakesForFalse() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "level"],
             "transform": {"concat": {"columns": ["id", "level"], "destination": "column_x",
                                      "delimiter": "="}},
             "children": [
               {"table": "child_1", "label": "Child1", "columns": ["column_1", "column_2"],
                "relationship": {"variant": "object", "type": "one_to_one"},
                "transform": {"concat": {"columns": ["column_1", "column_2"],
                                         "destination": "column_3", "delimiter": "_"}}},
               {"table": "child_2", "label": "Child2", "columns": ["column1", "column2"],
                "relationship": {"variant": "object", "type": "one_to_many"},
                "transform": {"concat": [
                  {"columns": ["http", "://", "column1", "/", "path"], "destination": "column3"},
                  {"columns": ["http", "://", "column1", "/", "path"], "destination": "column4"}]}}]}
            """);
    assertThat(row(plan.root(), "{'level': 1, 'id': '007'}"))
        .isEqualTo(json("{'id': '007', 'level': 1, 'column_x': '007=1'}"));
    assertThat(row(node(plan, "Child1"), "{'column_1': 2, 'column_2': 'aa'}"))
        .isEqualTo(json("{'column_1': 2, 'column_2': 'aa', 'column_3': '2_aa'}"));
    assertThat(row(node(plan, "Child2"), "{'column1': 3, 'column2': 'dd'}"))
        .isEqualTo(
            json(
                "{'column1': 3, 'column2': 'dd', 'column3': 'http://3/path',"
                    + " 'column4': 'http://3/path'}"));
  }

  @Test
  void aConcatNestedUnderChildrensLabelsIsEachChilds() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id"],
             "transform": {"concat": {
               "Child1": {"columns": ["column_1", "column_2"], "delimiter": "_",
                          "destination": "column_3"},
               "Child2": {"columns": ["column_1"], "destination": "column_3"}}},
             "children": [
               {"table": "child_1", "label": "Child1", "columns": ["column_1", "column_2"],
                "relationship": {"variant": "object", "type": "one_to_many"}},
               {"table": "child_2", "label": "Child2", "columns": ["column_1", "column_2"],
                "relationship": {"variant": "object", "type": "one_to_many"}}]}
            """);
    assertThat(row(node(plan, "Child1"), "{'column_1': 3, 'column_2': 'bb'}"))
        .isEqualTo(json("{'column_1': 3, 'column_2': 'bb', 'column_3': '3_bb'}"));
    assertThat(row(node(plan, "Child2"), "{'column_1': 2, 'column_2': 'aa'}"))
        .isEqualTo(json("{'column_1': 2, 'column_2': 'aa', 'column_3': '2'}"));
  }

  @Test
  void concatOfNamesThatAreNoFieldTakesThemAsTextAndLeavesOutNulls() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "first", "second", "third"],
             "transform": {"concat": [
               {"columns": ["first", "fourth", "fifth"], "destination": "literals",
                "delimiter": "-"},
               {"columns": ["first", "second", "third"], "destination": "combined",
                "delimiter": "-"},
               {"columns": ["first", "second"], "destination": "together"}]}}
            """);
    assertThat(row(plan.root(), "{'id': 1, 'first': 'A', 'second': null, 'third': 'C'}"))
        .isEqualTo(
            json(
                "{'id': 1, 'first': 'A', 'second': null, 'third': 'C', 'literals':"
                    + " 'A-fourth-fifth', 'combined': 'A-C', 'together': 'A'}"));
  }

  @Test
  void concatWritesValuesAsPythonsStrDoes() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["level", "price", "ratio", "active", "doc", "name"],
             "transform": {"concat": {"columns": ["level", "price", "ratio", "active", "doc",
                                                  "name"],
                                      "destination": "all", "delimiter": "|"}}}
            """);
    assertThat(
            row(
                    plan.root(),
                    "{'level': 0, 'price': 12, 'ratio': 1e16, 'active': true,"
                        + " 'doc': {'a': [1, 'x', null, 2.5]}, 'name': ''}")
                .get("all")
                .asText())
        .as("0 and '' are false to Python; a numeric(10,2) a float, a whole double an int")
        .isEqualTo("12.0|10000000000000000|True|{'a': [1, 'x', None, 2.5]}");
    assertThat(PythonText.floatRepr(0.1)).isEqualTo("0.1");
    assertThat(PythonText.floatRepr(1e15)).isEqualTo("1000000000000000.0");
    assertThat(PythonText.floatRepr(0.00001)).isEqualTo("1e-05");
    assertThat(PythonText.floatRepr(0.0001)).isEqualTo("0.0001");
    assertThat(PythonText.floatRepr(123456789.123)).isEqualTo("123456789.123");
    assertThat(PythonText.floatRepr(-2.5e-300)).isEqualTo("-2.5e-300");
  }

  @Test
  void transformsApplyInPgsyncsOrderReplaceRenameConcat() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "code"],
             "transform": {"replace": {"code": {"-": "_"}},
                           "rename": {"code": "product_code"},
                           "concat": {"columns": ["id", "product_code"],
                                      "destination": "full_code", "delimiter": ":"}}}
            """);
    assertThat(row(plan.root(), "{'id': '001', 'code': 'A-B-C'}"))
        .isEqualTo(json("{'id': '001', 'product_code': 'A_B_C', 'full_code': '001:A_B_C'}"));
  }

  @Test
  void aConcatOfAChildOrOntoAFieldIsRefused() {
    refused(
        """
        {'table': 'tableau', 'columns': ['id'],
         'transform': {'concat': {'columns': ['id', 'Child1'], 'destination': 'x'}},
         'children': [{'table': 'child_1', 'label': 'Child1', 'columns': ['column_1'],
                       'relationship': {'variant': 'object', 'type': 'one_to_one'}}]}
        """,
        "transform.concat names the child 'Child1', whose value is a document, not a text");
    refused(
        "{'table': 'tableau', 'columns': ['id', 'code'],"
            + " 'transform': {'concat': {'columns': ['id'], 'destination': 'code'}}}",
        "transform.concat's destination 'code' is already a field");
  }

  // --- move, which no PGSync version applies

  @Test
  void moveIsReadAndDoesNothingAsInPgsync() {
    DocumentPlan plan =
        plan(
            "{'table': 'tableau', 'columns': ['id', 'code'],"
                + " 'transform': {'move': {'column': 'id', 'destination': '$root.x'}}}");
    assertThat(row(plan.root(), "{'id': '1', 'code': 'c'}"))
        .isEqualTo(json("{'id': '1', 'code': 'c'}"));
  }

  // --- JSON paths: PGSync's examples/book/schema.json

  @Test
  void jsonPathColumnsTakePgsyncsNamesAndPostgresqlsValues() {
    DocumentPlan plan =
        plan(
            """
            {"table": "tableau", "columns": ["id", "doc->firstname", "doc->coordinates",
              "doc#>{a,b,c}->4", "doc->x", "doc->x->0->y", "doc->x->1->z", "doc->missing"],
             "transform": {"rename": {"doc_firstname": "first_name"},
                           "replace": {"doc_x_0_y": {"o": "0"}}}}
            """);
    assertThat(plan.root().fields().stream().map(DocumentPlan.Field::name))
        .containsExactly(
            "id",
            "first_name",
            "doc_coordinates",
            "doc_a,b,c_4",
            "doc_x",
            "doc_x_0_y",
            "doc_x_1_z",
            "doc_missing");
    assertThat(
            row(
                plan.root(),
                "{'id': '1', 'doc': {'firstname': 'Oscar', 'coordinates': [1.5, 2],"
                    + " 'a': {'b': {'c': [0, 1, 2, 3, {'d': 4}]}},"
                    + " 'x': [{'y': 'foo'}, {'z': 'bar'}]}}"))
        .isEqualTo(
            json(
                "{'id': '1', 'first_name': 'Oscar', 'doc_coordinates': [1.5, 2],"
                    + " 'doc_a,b,c_4': {'d': 4}, 'doc_x': [{'y': 'foo'}, {'z': 'bar'}],"
                    + " 'doc_x_0_y': 'f00', 'doc_x_1_z': 'bar', 'doc_missing': null}"));
  }

  @Test
  void aJsonPathFollowsPostgresqlsOperators() {
    JsonNode doc = json("{'a': [10, 20, 30], '4': 'four', 'b': {'c d': 1}}");
    assertThat(JsonPath.parse("doc#>{a,-1}").apply(doc).asInt()).as("from the end").isEqualTo(30);
    assertThat(JsonPath.parse("doc->a->1").apply(doc).asInt()).isEqualTo(20);
    assertThat(JsonPath.parse("doc#>{4}").apply(doc).asText())
        .as("a key of digits")
        .isEqualTo("four");
    assertThat(JsonPath.parse("doc->4").apply(doc)).as("-> of digits is an index").isNull();
    assertThat(JsonPath.parse("doc#>{b, \"c d\"}").apply(doc).asInt()).isEqualTo(1);
    assertThat(JsonPath.parse("doc->a->x").apply(doc)).as("a key of an array").isNull();
    assertThatThrownBy(() -> JsonPath.parse("doc->>firstname"))
        .hasMessageContaining("uses ->> or #>>, which PGSync reads as -> or #> of a key starting");
  }

  @Test
  void aJsonPathOfAColumnThatIsNotJsonIsRefused() {
    refused(
        "{'table': 'tableau', 'columns': ['code->a']}",
        "columns: 'code->a' reads a JSON path of code, which is text");
  }

  // --- helpers

  private static DocumentPlan plan(String root) {
    return DocumentPlanner.plan(
        DefinitionFile.parse(
                "[{\"database\": \"d\", \"index\": \"i\", \"nodes\": "
                    + root.replace('\'', '"')
                    + "}]")
            .get(0),
        (schema, table) -> Optional.ofNullable(TABLES.get(table)));
  }

  private static void refused(String root, String message) {
    assertThatThrownBy(() -> plan(root))
        .isInstanceOf(DefinitionException.class)
        .hasMessageContaining(message);
  }

  private static DocumentPlan.Node node(DocumentPlan plan, String label) {
    return plan.nodes().stream()
        .filter(n -> n.label().equals(label) && !n.link())
        .findFirst()
        .orElseThrow();
  }

  /** A row of a node, its fields by name, as the node's transforms make them. */
  private static JsonNode row(DocumentPlan.Node node, String values) {
    String[] fields = FieldValues.of(node, column(values));
    ObjectNode out = Json.mapper().createObjectNode();
    for (int i = 0; i < fields.length; i++) {
      try {
        out.set(node.fields().get(i).name(), Json.mapper().readTree(fields[i]));
      } catch (Exception e) {
        throw new IllegalStateException(fields[i], e);
      }
    }
    return out;
  }

  private static java.util.function.Function<String, String> column(String values) {
    JsonNode row = json(values);
    return c -> row.has(c) ? row.get(c).toString() : "null";
  }

  private static JsonNode json(String singleQuoted) {
    try {
      return Json.mapper().readTree(singleQuoted.replace('\'', '"'));
    } catch (Exception e) {
      throw new IllegalArgumentException(singleQuoted, e);
    }
  }

  private static Map<String, String> cols(String... nameType) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (int i = 0; i < nameType.length; i += 2) {
      columns.put(nameType[i], nameType[i + 1]);
    }
    return columns;
  }

  private static void table(String name, Map<String, String> columns, List<ForeignKey> keys) {
    TABLES.put(name, TableInfo.of("public", name, columns, List.of("id"), keys));
  }
}
