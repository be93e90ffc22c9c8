package dev.weir.documents.definition;

import java.util.Optional;

/** The source database's catalog, as far as a definition needs it. */
@FunctionalInterface
public interface SourceCatalog {

  /** The table, or empty if the database has none of that name. */
  Optional<TableInfo> table(String schema, String table) throws Exception;
}
