package dev.weir.documents.index;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.indices.CreateIndexRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.connector.elasticsearch.ElasticsearchSettings;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.documents.definition.DocumentPlan.Node;
import dev.weir.documents.definition.ValueType;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.Serializable;
import java.io.StringReader;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.connector.base.sink.writer.ElementConverter;

/**
 * The Elasticsearch side of a declared document: the index's mapping, derived from the plan; the
 * alias the job writes through ({@link DocumentPlan#index()}); the document of a {@link
 * DocumentChange} and its bulk operation (external version = the document's version, so a replay or
 * a late write never regresses a document).
 */
public final class DocumentIndex implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String alias;
  private final List<String> fieldNames;
  private final String mapping;

  public DocumentIndex(DocumentPlan plan) {
    this.alias = plan.index();
    this.fieldNames = plan.documentFields().stream().map(DocumentPlan.DocumentField::name).toList();
    this.mapping = mappingOf(plan).toString();
  }

  /** The alias searches use and the job writes through. */
  public String alias() {
    return alias;
  }

  /** The index created behind the alias when there is none yet. */
  public String initialIndex() {
    return alias + "-v1";
  }

  /** The settings and mappings of the index, as the create-index request's body. */
  public String mapping() {
    return mapping;
  }

  /**
   * Settings: one shard, no replica (sized for one index per document kind; scale by reindexing),
   * deletes remembered for an hour so that a late index of an older version cannot bring a deleted
   * document back. Mappings: strict, so a document that does not fit is refused, not guessed.
   */
  static ObjectNode mappingOf(DocumentPlan plan) {
    ObjectNode body = Json.mapper().createObjectNode();
    ObjectNode settings =
        body.putObject("settings")
            .put("number_of_shards", 1)
            .put("number_of_replicas", 0)
            .put("index.gc_deletes", "1h");
    // The definition's own (PGSync's setting: analyzers, tokenizers), as Elasticsearch nests them.
    plan.setting().forEach((name, value) -> settings.set(name, value.deepCopy()));
    ObjectNode mappings = body.putObject("mappings").put("dynamic", "strict");
    ObjectNode properties = properties(plan, plan.root());
    // PGSync's document mapping over the derived one, key by key ("type": "nested" on an object
    // keeps its properties).
    plan.mapping()
        .forEach(
            (field, given) -> {
              ObjectNode merged = ((ObjectNode) properties.get(field)).deepCopy();
              given.fields().forEachRemaining(e -> merged.set(e.getKey(), e.getValue().deepCopy()));
              properties.set(field, withTermLimit(merged));
            });
    // The hash is compared by the backfill, never searched.
    properties
        .putObject(DocumentPlan.CONTENT_HASH)
        .put("type", "keyword")
        .put("index", false)
        .put("doc_values", false);
    mappings.set("properties", properties);
    return body;
  }

  /** The fields of an object node: its columns, then its children's labels. */
  private static ObjectNode properties(DocumentPlan plan, Node node) {
    ObjectNode properties = Json.mapper().createObjectNode();
    for (Field f : node.fields()) {
      properties.set(f.name(), overridden(node, f.name(), fieldMapping(f)));
    }
    for (int id : node.children()) {
      Node child = plan.node(id);
      properties.set(child.label(), overridden(node, child.label(), labelMapping(plan, child)));
    }
    return properties;
  }

  /** A child's label: an object of its fields, or (scalar) its one column's type. */
  private static JsonNode labelMapping(DocumentPlan plan, Node child) {
    if (child.link()) {
      return labelMapping(plan, plan.node(child.children().get(0)));
    }
    if (child.scalar()) {
      Field only = child.fields().get(0);
      return overridden(child, only.name(), fieldMapping(only));
    }
    // An object, written as Elasticsearch writes it back (no "type": "object"), so that an
    // existing index's mapping compares equal to this one.
    ObjectNode object = Json.mapper().createObjectNode();
    object.set("properties", properties(plan, child));
    return object;
  }

  /**
   * A column's mapping from its type (an array maps as its element). Where a value of the column's
   * type may be one the field type cannot hold (a numeric beyond a double or NaN, a date of year
   * 10000 or BC or infinity), the field ignores it: the value stays in {@code _source}, unindexed,
   * rather than the whole document being refused. A json or jsonb value of any shape is kept in
   * {@code _source} unindexed, unless the definition maps it (as {@code flattened}, for objects).
   */
  private static ObjectNode fieldMapping(Field f) {
    ValueType type = f.type();
    ObjectNode mapping = Json.mapper().createObjectNode().put("type", type.elasticsearchType);
    switch (type) {
      // Full text, and the exact value for sorting, terms and aggregations.
      case TEXT ->
          mapping
              .putObject("fields")
              .putObject("keyword")
              .put("type", "keyword")
              .put("ignore_above", 256);
      // Longer values would make Elasticsearch refuse the whole document.
      case KEYWORD, TIME, TIMETZ, INTERVAL, BYTEA -> mapping.put("ignore_above", 1024);
      case DECIMAL, FLOAT, DATE, TIMESTAMP, TIMESTAMPTZ -> mapping.put("ignore_malformed", true);
      case JSON -> mapping.put("enabled", false);
      default -> {}
    }
    return mapping;
  }

  /**
   * The columns of {@code source} that some node indexes as a flattened field (a json or jsonb
   * column, unless the definition maps it otherwise): Elasticsearch takes only an object, or a list
   * of objects, there ({@link Values#checkFlattened}).
   */
  public static Set<String> flattenedColumns(DocumentPlan plan, DocumentPlan.Source source) {
    Set<String> columns = new TreeSet<>();
    plan.readersOf(source.name())
        .forEach(
            node -> {
              for (Field f : node.fields()) {
                JsonNode mapping = overridden(node, f.name(), fieldMapping(f));
                if ("flattened".equals(mapping.path("type").asText())) {
                  columns.add(f.column());
                }
              }
            });
    return columns;
  }

  /** The definition's transform.mapping of a field, where it gives one, else the derived one. */
  private static JsonNode overridden(Node node, String field, JsonNode derived) {
    JsonNode given = node.mapping().get(field);
    return given != null ? withTermLimit(given.deepCopy()) : derived;
  }

  /**
   * The most characters of a keyword that always fit Elasticsearch's 32,766-byte term (4 bytes a
   * character at most in UTF-8).
   */
  static final int LONGEST_KEYWORD = 32_766 / 4;

  /**
   * A given keyword mapping (or sub-field) without {@code ignore_above} gets one: a longer value
   * would make Elasticsearch refuse the whole document, every time the job retried it. With it, the
   * value stays in {@code _source} and is not indexed as a term.
   */
  private static JsonNode withTermLimit(JsonNode mapping) {
    if (mapping instanceof ObjectNode m) {
      if ("keyword".equals(m.path("type").asText()) && !m.has("ignore_above")) {
        m.put("ignore_above", LONGEST_KEYWORD);
      }
      if (m.get("fields") instanceof ObjectNode fields) {
        fields.forEach(DocumentIndex::withTermLimit);
      }
      if (m.get("properties") instanceof ObjectNode properties) {
        properties.forEach(DocumentIndex::withTermLimit);
      }
    }
    return mapping;
  }

  /**
   * Makes sure the alias exists: if not, creates the initial index from the mapping and points the
   * alias at it. Returns the indices behind the alias.
   */
  public Set<String> ensureAlias(ElasticsearchSettings settings) throws IOException {
    return ensureAlias(settings, alias, initialIndex(), mapping);
  }

  /** {@link #ensureAlias(ElasticsearchSettings)} for any alias and mapping. */
  public static Set<String> ensureAlias(
      ElasticsearchSettings settings, String alias, String index, String mapping)
      throws IOException {
    try (var transport = ElasticsearchClients.transport(settings)) {
      ElasticsearchClient es = new ElasticsearchClient(transport);
      if (!es.indices().existsAlias(a -> a.name(alias)).value()) {
        if (es.indices().exists(e -> e.index(alias)).value()) {
          throw new IllegalStateException(
              "an index named "
                  + alias
                  + " exists where the alias "
                  + alias
                  + " should be. Elasticsearch creates one, with a mapping guessed from the"
                  + " document, when a write reaches the alias after its index was deleted"
                  + " (weir's writes now require the alias). Delete it (DELETE /"
                  + alias
                  + "), start the job again (it creates "
                  + index
                  + " behind the alias from the mapping), then refill it from the copy: weir"
                  + " backfill --target "
                  + index);
        }
        if (!es.indices().exists(e -> e.index(index)).value()) {
          create(es, index, mapping);
        }
        es.indices()
            .updateAliases(u -> u.actions(a -> a.add(add -> add.index(index).alias(alias))));
      }
      return es.indices().getAlias(a -> a.name(alias)).result().keySet();
    }
  }

  /** Creates an index with this document's mapping (a backfill's target). */
  public void create(ElasticsearchClient es, String index) throws IOException {
    create(es, index, mapping);
  }

  /** Creates an index from a create-index request body (settings and mappings). */
  public static void create(ElasticsearchClient es, String index, String mapping)
      throws IOException {
    es.indices()
        .create(CreateIndexRequest.of(c -> c.index(index).withJson(new StringReader(mapping))));
  }

  /** The Elasticsearch document of a change: every field's value, then the content hash. */
  public byte[] document(DocumentChange change) {
    return DocumentSource.json(fieldNames, change.values, change.contentHash);
  }

  /**
   * {@link #converter} through the alias, which must exist: a write never creates an index of its
   * name (see {@link DocumentOperation#requiringAlias()}). The streaming job's.
   */
  public ElementConverter<DocumentChange, DocumentOperation> aliasConverter() {
    ElementConverter<DocumentChange, DocumentOperation> direct = converter(alias);
    return (change, context) -> direct.apply(change, context).requiringAlias();
  }

  /** Index (external version = document version) or delete, into {@code target}. */
  public ElementConverter<DocumentChange, DocumentOperation> converter(String target) {
    DocumentIndex index = this;
    return (change, context) ->
        change.deleted
            ? DocumentOperation.delete(target, change.id, change.version)
            : DocumentOperation.index(target, change.id, change.version, index.document(change));
  }
}
