package dev.weir.documents.definition;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One document of a definition file: the source database, the Elasticsearch index (weir writes
 * through an alias of that name) and the root node; the Postgres copy's table is {@code copyTable}
 * (weir extension {@code "weir": {"copy_table": ...}}, by default {@code <index>_document}).
 *
 * @param setting PGSync's {@code setting}: index settings (analyzers) over weir's, or empty
 * @param mapping PGSync's document {@code mapping}: a root field → its mapping, over the derived
 *     one
 */
public record DocumentSpec(
    String database,
    String index,
    String copyTable,
    NodeSpec root,
    Map<String, JsonNode> setting,
    Map<String, JsonNode> mapping) {

  public DocumentSpec(String database, String index, String copyTable, NodeSpec root) {
    this(database, index, copyTable, root, Map.of(), Map.of());
  }
}
