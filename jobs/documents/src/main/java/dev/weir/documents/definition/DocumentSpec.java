package dev.weir.documents.definition;

/**
 * One document of a definition file: the source database, the Elasticsearch index (weir writes
 * through an alias of that name) and the root node; the Postgres copy's table is {@code copyTable}
 * (weir extension {@code "weir": {"copy_table": ...}}, by default {@code <index>_document}); what
 * the file says of the index itself (settings, mappings, routing, pipeline) is {@code search}.
 */
public record DocumentSpec(
    String database, String index, String copyTable, NodeSpec root, IndexDefinition search) {}
