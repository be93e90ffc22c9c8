package dev.weir.documents.definition;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.documents.transform.Concat;
import dev.weir.documents.transform.FieldTransform;
import dev.weir.documents.transform.JsonPath;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fields of a node, from its columns and PGSync's transforms of them, checked against the
 * table: each column or JSON path read, replaced, renamed; then each concat, a field of its own.
 * Every name a transform gives that is no field (nor, for a rename, a child's label) is an error
 * naming it.
 */
final class NodeFields {

  private NodeFields() {}

  /**
   * @param columns the node's columns, or JSON paths, as the file lists them (all, if it lists
   *     none)
   * @param labels the node's children's labels, as the file gives them
   */
  static List<Field> of(NodeSpec spec, TableInfo table, List<String> columns, Set<String> labels) {
    String path = spec.path();
    NodeSpec.Transforms t = spec.transforms();
    List<Field> fields = new ArrayList<>();
    Set<String> keys = new LinkedHashSet<>();
    Set<String> names = new LinkedHashSet<>();
    for (String entry : columns) {
      JsonPath jsonPath = JsonPath.isPath(entry) ? JsonPath.parse(entry) : null;
      String column = jsonPath == null ? entry : jsonPath.column();
      String key = jsonPath == null ? entry : jsonPath.name();
      DocumentPlanner.requireColumns(path, table, List.of(column), "columns");
      String pgType = table.columns().get(column);
      boolean json = ValueType.of(pgType) == ValueType.JSON && !ValueType.isArray(pgType);
      if (jsonPath != null) {
        if (!json) {
          throw DefinitionException.at(
              path,
              "columns: '" + entry + "' reads a JSON path of " + column + ", which is " + pgType);
        }
        if (key.contains(".")) {
          throw DefinitionException.at(
              path,
              "columns: '"
                  + entry
                  + "' makes the field '"
                  + key
                  + "', whose '.' Elasticsearch would read as a path: rename it");
        }
        pgType = "jsonb";
      }
      JsonNode replace = t.replace().get(key);
      LinkedHashMap<String, String> replacements = null;
      JsonNode replaceWithin = null;
      if (replace != null && FieldTransform.isReplacementMap(replace)) {
        replacements = FieldTransform.replacementMap(replace);
      } else if (replace != null) {
        replaceWithin = within(path, "replace", key, json, replace);
      }
      JsonNode renameWithin = t.renameWithin().get(key);
      if (renameWithin != null) {
        within(path, "rename", key, json, renameWithin);
      }
      FieldTransform transform =
          jsonPath == null && replace == null && renameWithin == null
              ? null
              : new FieldTransform(jsonPath, replacements, replaceWithin, renameWithin);
      String name = t.rename().getOrDefault(key, key);
      if (!keys.add(key) || !names.add(name)) {
        throw DefinitionException.at(path, "two columns are written as '" + name + "'");
      }
      fields.add(new Field(column, name, pgType, transform, null));
    }
    names(path, "replace", t.replace().keySet(), keys);
    names(path, "rename", t.renameWithin().keySet(), keys);
    for (String renamed : t.rename().keySet()) {
      if (!keys.contains(renamed) && !labels.contains(renamed)) {
        throw DefinitionException.at(
            path,
            "transform.rename names '" + renamed + "', which is not among its columns or children");
      }
    }
    for (NodeSpec.ConcatSpec c : t.concat()) {
      fields.add(concat(spec, c, fields, labels, names));
    }
    return fields;
  }

  /** A concat's field: its parts, fields of the node (by their names so far) or literals. */
  private static Field concat(
      NodeSpec spec,
      NodeSpec.ConcatSpec c,
      List<Field> fields,
      Set<String> labels,
      Set<String> names) {
    String path = spec.path();
    if (spec.relationship() != null && spec.relationship().variant() == NodeSpec.Variant.SCALAR) {
      throw DefinitionException.at(
          path, "transform.concat makes a field of an object: a scalar's value is one column");
    }
    Map<String, Field> byName = new LinkedHashMap<>();
    fields.forEach(f -> byName.put(f.name(), f));
    List<Concat.Part> parts = new ArrayList<>();
    for (String column : c.columns()) {
      Field f = byName.get(column);
      if (f == null && labels.contains(column)) {
        throw DefinitionException.at(
            path,
            "transform.concat names the child '"
                + column
                + "', whose value is a document, not a text");
      }
      parts.add(new Concat.Part(column, f == null, f == null ? null : numbers(f.pgType())));
    }
    if (!names.add(c.destination()) || labels.contains(c.destination())) {
      throw DefinitionException.at(
          path,
          "transform.concat's destination '"
              + c.destination()
              + "' is already a field: name a new one");
    }
    return new Field(
        null,
        c.destination(),
        "text",
        null,
        new Concat(List.copyOf(parts), c.delimiter(), c.destination()));
  }

  /**
   * How PGSync reads a column's numbers: a numeric of a scale ({@code numeric(10,2)}) always has a
   * fraction in its jsonb text, a real or double a whole value none.
   */
  private static Concat.Numbers numbers(String pgType) {
    if (ValueType.isArray(pgType)) {
      return Concat.Numbers.AS_WRITTEN;
    }
    return switch (ValueType.of(pgType)) {
      case DECIMAL ->
          pgType.matches(".*\\(\\s*\\d+\\s*,\\s*[1-9]\\d*\\s*\\).*")
              ? Concat.Numbers.FLOAT
              : Concat.Numbers.AS_WRITTEN;
      case FLOAT -> Concat.Numbers.WHOLE_AS_INT;
      default -> Concat.Numbers.AS_WRITTEN;
    };
  }

  private static JsonNode within(
      String path, String kind, String key, boolean json, JsonNode spec) {
    if (!json) {
      throw DefinitionException.at(
          path,
          "transform."
              + kind
              + "."
              + key
              + " is nested (an object of objects), which applies inside a json column's value;"
              + " "
              + key
              + " is not one");
    }
    return spec;
  }

  private static void names(String path, String kind, Set<String> named, Set<String> keys) {
    for (String key : named) {
      if (!keys.contains(key)) {
        throw DefinitionException.at(
            path, "transform." + kind + " names '" + key + "', which is not among its columns");
      }
    }
  }
}
