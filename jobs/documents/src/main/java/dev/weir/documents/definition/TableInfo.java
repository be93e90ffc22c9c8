package dev.weir.documents.definition;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the source database's catalog says of one table: its columns and their types (as {@code
 * format_type} writes them, e.g. {@code bigint}, {@code text}, {@code numeric(14,4)}), its primary
 * key and its foreign keys.
 */
public record TableInfo(
    String schema,
    String table,
    LinkedHashMap<String, String> columns,
    List<String> primaryKey,
    List<ForeignKey> foreignKeys) {

  /** {@code columns} of this table reference {@code referencedColumns} of the other table. */
  public record ForeignKey(
      List<String> columns,
      String referencedSchema,
      String referencedTable,
      List<String> referencedColumns) {

    public boolean references(TableInfo table) {
      return referencedSchema.equals(table.schema()) && referencedTable.equals(table.table());
    }
  }

  public String qualifiedName() {
    return schema + "." + table;
  }

  /** A table made by hand (tests, topic nodes). */
  public static TableInfo of(
      String schema,
      String table,
      Map<String, String> columns,
      List<String> primaryKey,
      List<ForeignKey> foreignKeys) {
    return new TableInfo(schema, table, new LinkedHashMap<>(columns), primaryKey, foreignKeys);
  }
}
