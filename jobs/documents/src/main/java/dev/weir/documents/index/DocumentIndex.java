package dev.weir.documents.index;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.Engine;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.connector.elasticsearch.SearchException;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.documents.definition.DocumentPlan.Node;
import dev.weir.documents.definition.IndexDefinition;
import dev.weir.documents.definition.ValueType;
import dev.weir.documents.value.Values;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.flink.connector.base.sink.writer.ElementConverter;

/**
 * The search side of a declared document: the index's settings and mapping, derived from the plan
 * with the definition's own over them; the alias the job writes through ({@link
 * DocumentPlan#index()}); the document of a {@link DocumentChange} and its bulk operation (external
 * version = the document's version, so a replay or a late write never regresses a document; the
 * routing field's value as its routing; the definition's ingest pipeline).
 */
public final class DocumentIndex implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String alias;
  private final List<String> fieldNames;
  private final String mapping;
  private final int routingField;
  private final String pipeline;

  public DocumentIndex(DocumentPlan plan) {
    this.alias = plan.index();
    this.fieldNames = plan.documentFields().stream().map(DocumentPlan.DocumentField::name).toList();
    this.mapping = mappingOf(plan).toString();
    this.routingField = plan.routingField();
    this.pipeline = plan.search().pipeline();
  }

  /** The alias searches use and the job writes through. */
  public String alias() {
    return alias;
  }

  /** The index created behind the alias when there is none yet. */
  public String initialIndex() {
    return alias + "-v1";
  }

  /**
   * The settings and mappings of the index, as the create-index request's body (for Elasticsearch;
   * {@link SearchCluster#createIndex} puts it in the engine's terms).
   */
  public String mapping() {
    return mapping;
  }

  /** {@link #mapping()} as a JSON tree. */
  public ObjectNode body() {
    try {
      return (ObjectNode) Json.mapper().readTree(mapping);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The ingest pipeline documents go through, or null. */
  public String pipeline() {
    return pipeline;
  }

  /**
   * Settings: one shard, no replica (sized for one index per document kind on one node; the
   * definition's {@code setting} and the shards and replicas options say otherwise), deletes
   * remembered for an hour so that a late index of an older version cannot bring a deleted document
   * back. Mappings: strict, so a document that does not fit is refused, not guessed. The
   * definition's {@code mapping} and {@code mappings} go over them, key by key.
   */
  static ObjectNode mappingOf(DocumentPlan plan) {
    ObjectNode body = Json.mapper().createObjectNode();
    ObjectNode settings =
        body.putObject("settings")
            .put("number_of_shards", 1)
            .put("number_of_replicas", 0)
            .put("gc_deletes", "1h");
    IndexDefinition.merge(settings, plan.search().settings());
    ObjectNode mappings = body.putObject("mappings").put("dynamic", "strict");
    ObjectNode properties = properties(plan, plan.root());
    // The hash is compared by the backfill, never searched.
    properties
        .putObject(DocumentPlan.CONTENT_HASH)
        .put("type", "keyword")
        .put("index", false)
        .put("doc_values", false);
    mappings.set("properties", properties);
    ObjectNode given = plan.search().mappings().deepCopy();
    given.path("properties").forEach(DocumentIndex::withTermLimit);
    IndexDefinition.merge(mappings, given);
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
    JsonNode given = plan.search().mappings().path("properties");
    plan.readersOf(source.name())
        .forEach(
            node -> {
              for (Field f : node.fields()) {
                JsonNode mapping = overridden(node, f.name(), fieldMapping(f));
                if (node.isRoot() && given.path(f.name()).has("type")) {
                  mapping = given.path(f.name()); // the definition's top-level mapping
                }
                if (Engine.isFlattened(mapping)) {
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
  public Set<String> ensureAlias(SearchCluster cluster) throws IOException {
    return ensureAlias(cluster, alias, initialIndex(), body());
  }

  /** {@link #ensureAlias(SearchCluster)} for any alias and create-index body. */
  public static Set<String> ensureAlias(
      SearchCluster cluster, String alias, String index, JsonNode body) throws IOException {
    if (!cluster.aliasExists(alias)) {
      if (cluster.indexExists(alias)) {
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
      if (!cluster.indexExists(index)) {
        cluster.createIndex(index, body);
      }
      ArrayNode add = Json.mapper().createArrayNode();
      add.add(SearchCluster.aliasAction("add", index, alias));
      cluster.updateAliases(add);
    }
    return cluster.indicesBehind(alias);
  }

  /** Creates an index with this document's settings and mapping (a backfill's target). */
  public void create(SearchCluster cluster, String index) throws IOException {
    cluster.createIndex(index, body());
  }

  /**
   * Checks, before anything is written, that the cluster takes this document's index as the
   * definition makes it: an index of its settings and mapping is created under a throwaway name and
   * deleted (an engine checks settings, analyzers and mappings only then); its ingest pipeline
   * exists.
   *
   * @throws DefinitionException naming the document and what the engine refused, in its words
   */
  public void check(SearchCluster cluster) throws IOException {
    String throwaway = alias + "-weir-check-" + UUID.randomUUID().toString().substring(0, 8);
    try {
      cluster.createIndex(throwaway, body());
    } catch (SearchException refused) {
      throw new DefinitionException(
          "document '"
              + alias
              + "': "
              + cluster.engine()
              + " refuses its index settings and mapping: "
              + refused.type()
              + ": "
              + refused.reason()
              + " (the definition's setting, mapping and mappings go over weir's own;"
              + " `weir documents check` prints the whole)");
    } finally {
      cluster.deleteIndex(throwaway);
    }
    if (pipeline != null && !cluster.pipelineExists(pipeline)) {
      throw new DefinitionException(
          "document '"
              + alias
              + "': its pipeline '"
              + pipeline
              + "' is not an ingest pipeline of the cluster at "
              + cluster.settings().url()
              + " ("
              + cluster.engine()
              + "): create it (PUT _ingest/pipeline/"
              + pipeline
              + "), or leave 'pipeline' out");
    }
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

  /**
   * Index (external version = document version) or delete, into {@code target}, at the document's
   * routing; a document whose routing changed is also deleted at the one it had.
   */
  public ElementConverter<DocumentChange, DocumentOperation> converter(String target) {
    DocumentIndex index = this;
    return (change, context) -> {
      if (change.deleted) {
        return DocumentOperation.delete(target, change.id, change.version).routedBy(change.routing);
      }
      DocumentOperation op =
          DocumentOperation.index(target, change.id, change.version, index.document(change))
              .routedBy(change.routing);
      return change.rerouted ? op.movedFrom(change.previousRouting) : op;
    };
  }

  /**
   * The routing of a document whose fields are {@code values} (JSON texts, in {@link
   * DocumentPlan#documentFields()} order): its routing field's value as text, or null to be routed
   * by its id (no routing field, or a null value).
   */
  public String routing(String[] values) {
    return routingField < 0 ? null : Routing.of(values[routingField]);
  }
}
