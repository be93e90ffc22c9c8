package dev.weir.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.DeadLetters;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.KafkaIo;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.DeclaredRow;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.Json;
import dev.weir.search.copy.CopyWriter;
import dev.weir.search.copy.DocumentCopy;
import dev.weir.search.definition.DefinitionException;
import dev.weir.search.definition.DefinitionFile;
import dev.weir.search.definition.DocumentPlan;
import dev.weir.search.definition.DocumentPlanner;
import dev.weir.search.definition.DocumentSpec;
import dev.weir.search.definition.PostgresCatalog;
import dev.weir.search.index.DocumentIndex;
import dev.weir.search.index.IndexableDocuments;
import dev.weir.search.join.ChangeRows;
import dev.weir.search.join.DocumentChange;
import dev.weir.search.join.DocumentJoin;
import dev.weir.search.join.SourceRow;
import dev.weir.search.join.TopicRows;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import dev.weir.sink.elasticsearch.ElasticsearchSink;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Declared documents: the definition file ({@link SearchIndexOptions#DOCUMENTS}, by default the
 * bundled products definition), planned against the source database's catalog, and the topics of
 * the tables it names.
 */
public final class DeclaredDocuments {

  private DeclaredDocuments() {}

  /** The definition bundled with weir: today's products catalog, the default document. */
  public static final String PRODUCTS_RESOURCE = "weir/schemas/documents/products.json";

  /**
   * The documents of the definition file ({@link SearchIndexOptions#DOCUMENTS}), or without one the
   * bundled products definition, behind {@link SearchIndexOptions#ALIAS} and with its prices from
   * {@link SearchIndexOptions#PRICING_TOPIC}.
   */
  public static List<DocumentSpec> specs(WeirConfig config) {
    Optional<String> file = config.getOptional(SearchIndexOptions.DOCUMENTS);
    if (file.isPresent()) {
      return DefinitionFile.read(Path.of(file.get()));
    }
    return List.of(products(config));
  }

  /** The bundled products definition, with the alias and the price topic of {@code config}. */
  static DocumentSpec products(WeirConfig config) {
    ArrayNode file;
    try (InputStream in =
        DeclaredDocuments.class.getClassLoader().getResourceAsStream(PRODUCTS_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(PRODUCTS_RESOURCE + " is not on the class path");
      }
      file = (ArrayNode) Json.mapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ObjectNode document = (ObjectNode) file.get(0);
    document.put("index", config.get(SearchIndexOptions.ALIAS));
    for (JsonNode child : document.path("nodes").path("children")) {
      if (child.path("weir").has("topic")) {
        ((ObjectNode) child.get("weir")).put("topic", config.get(SearchIndexOptions.PRICING_TOPIC));
      }
    }
    return DefinitionFile.parse(file.toString()).get(0);
  }

  /**
   * The documents of {@link #specs}, planned against the catalog of the source database ({@link
   * SearchIndexOptions#CATALOG_URL}); a definition that does not fit it is refused here, with the
   * node named, before any job starts.
   */
  public static List<DocumentPlan> plans(WeirConfig config) {
    String file = config.getOptional(SearchIndexOptions.DOCUMENTS).orElse(PRODUCTS_RESOURCE);
    List<DocumentSpec> specs = specs(config);
    String url = config.get(SearchIndexOptions.CATALOG_URL);
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      PostgresCatalog catalog = new PostgresCatalog(c);
      List<DocumentPlan> plans = new ArrayList<>();
      for (DocumentSpec spec : specs) {
        plans.add(DocumentPlanner.plan(spec, catalog));
      }
      return plans;
    } catch (SQLException e) {
      throw new DefinitionException(
          file + ": cannot read the catalog of the source database " + url + ": " + e.getMessage());
    }
  }

  /**
   * The change topic of a declared table: {@code <prefix><table>}, or {@code
   * <prefix><schema>.<table>} outside {@code public}.
   */
  public static String topic(WeirConfig config, DocumentPlan.Source source) {
    String prefix = config.get(SearchIndexOptions.CDC_TOPIC_PREFIX);
    return "public".equals(source.schema())
        ? prefix + source.table()
        : prefix + source.schema() + "." + source.table();
  }

  /** Every topic the documents of {@code plans} read. */
  public static List<String> topics(WeirConfig config, List<DocumentPlan> plans) {
    Set<String> topics = new LinkedHashSet<>();
    for (DocumentPlan plan : plans) {
      for (DocumentPlan.Source source : plan.sources().values()) {
        topics.add(source.isTopic() ? source.topic() : topic(config, source));
      }
    }
    return List.copyOf(topics);
  }

  /** The tables every plan reads, for the capture: {@code schema.table}. */
  public static List<DocumentPlan.Source> tables(List<DocumentPlan> plans) {
    List<DocumentPlan.Source> tables = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (DocumentPlan plan : plans) {
      for (DocumentPlan.Source source : plan.sources().values()) {
        if (!source.isTopic() && seen.add(source.name())) {
          tables.add(source);
        }
      }
    }
    return tables;
  }

  /** The key columns of a table: those of every node that reads it. */
  public static List<String> keyColumns(DocumentPlan plan, DocumentPlan.Source source) {
    Set<String> columns = new LinkedHashSet<>();
    plan.readersOf(source.name()).forEach(n -> columns.addAll(n.keyColumns()));
    return List.copyOf(columns);
  }

  /**
   * The rows of every table of a document, decoded and checked (bad events to the DLQ), by the
   * table's (or topic's) name.
   */
  static Map<String, DataStream<SourceRow>> rows(
      StreamExecutionEnvironment env, WeirConfig config, DeadLetters dlq, DocumentPlan plan) {
    Map<String, DataStream<SourceRow>> rows = new LinkedHashMap<>();
    for (DocumentPlan.Source source : plan.sources().values()) {
      String name = source.isTopic() ? source.topic() : source.name();
      String uid = uid(plan) + "-" + name;
      DataStream<SourceRow> table =
          source.isTopic()
              ? KafkaIo.read(
                  env,
                  config,
                  dlq,
                  source.topic(),
                  EventCodec.of(eventSchema(source), DeclaredRow.class),
                  new TopicRows(
                      source,
                      keyColumns(plan, source),
                      DocumentIndex.flattenedColumns(plan, source)),
                  TypeInformation.of(SourceRow.class),
                  changeTimes(config),
                  uid)
              : KafkaIo.read(
                  env,
                  config,
                  dlq,
                  topic(config, source),
                  EventCodec.of(EventSchema.CDC_CATALOG, ChangeEvent.class),
                  new ChangeRows(
                      source,
                      keyColumns(plan, source),
                      DocumentIndex.flattenedColumns(plan, source)),
                  TypeInformation.of(SourceRow.class),
                  changeTimes(config),
                  uid);
      rows.put(name, table);
    }
    return rows;
  }

  /** What a topic node's events are checked against: its declared event schema, or any object. */
  static EventSchema eventSchema(DocumentPlan.Source source) {
    return source.eventSchema() == null
        ? EventSchema.DECLARED_ROWS
        : EventSchema.topicFamily(source.eventSchema()).orElseThrow();
  }

  /**
   * Event time: a change's commit time, or a topic event's Kafka timestamp; every topic read in
   * step with the others ({@link KafkaIo.Watermarks#caughtUp}).
   */
  private static KafkaIo.Watermarks<SourceRow> changeTimes(WeirConfig config) {
    return KafkaIo.Watermarks.caughtUp(
        (row, kafkaTimestamp) -> row.time != Long.MIN_VALUE ? row.time : kafkaTimestamp,
        positive(config, SearchIndexOptions.CHANGE_LAG));
  }

  private static Duration positive(WeirConfig config, ConfigOption<Duration> option) {
    Duration value = config.get(option);
    if (value.toMillis() < 1) {
      throw new IllegalArgumentException(
          option.key() + " must be at least 1 ms, not " + value.toMillis() + " ms");
    }
    return value;
  }

  /** The documents of one plan. */
  static DataStream<DocumentChange> documents(
      StreamExecutionEnvironment env, WeirConfig config, DeadLetters dlq, DocumentPlan plan) {
    DocumentJoin.Settings settings =
        new DocumentJoin.Settings(
            positive(config, SearchIndexOptions.COALESCE),
            config.get(SearchIndexOptions.SOURCE_EPOCH),
            config.get(SearchIndexOptions.TOMBSTONE_TTL));
    return DocumentJoin.join(rows(env, config, dlq, plan), plan, settings, uid(plan));
  }

  /** Creates or migrates the document's copy table, and its alias and index. */
  static void prepare(WeirConfig config, DocumentPlan plan) {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      new DocumentCopy(plan).migrate(c);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create or migrate the copy table " + plan.copyTable() + ": " + e.getMessage(), e);
    }
    ElasticsearchSettings elasticsearch = ElasticsearchSettings.from(config);
    try {
      new DocumentIndex(plan).ensureAlias(elasticsearch);
    } catch (IOException e) {
      throw new UncheckedIOException(ElasticsearchClients.explain(elasticsearch, e), e);
    }
  }

  /** The documents written to the copy, as the copy now holds them (see {@link CopyWriter}). */
  static DataStream<DocumentChange> written(
      DataStream<DocumentChange> documents, WeirConfig config, DocumentPlan plan) {
    return documents
        .transform(
            "copy " + plan.copyTable(),
            TypeInformation.of(DocumentChange.class),
            new CopyWriter(
                () -> new DocumentCopy(plan).writer(PostgresConnectionProvider.open(config)),
                config.get(SearchIndexOptions.WRITE_FLUSH).toMillis(),
                1000,
                "the copy " + plan.copyTable() + " at " + config.get(WeirOptions.POSTGRES_URL),
                PostgresTimeouts.of(config)))
        .uid(uid(plan) + "-copy");
  }

  /** The documents one Elasticsearch write takes; a larger one goes to the DLQ. */
  static DataStream<DocumentChange> indexable(
      DataStream<DocumentChange> written, DeadLetters dlq, DocumentPlan plan) {
    SingleOutputStreamOperator<DocumentChange> indexable =
        written
            .process(new IndexableDocuments(dlq.job(), plan))
            .returns(TypeInformation.of(DocumentChange.class))
            .uid(uid(plan) + "-indexable")
            .name("indexable " + plan.index());
    dlq.add(indexable.getSideOutput(DeadLetters.TAG));
    return indexable;
  }

  /** Elasticsearch, through the document's alias, with external versions. */
  static Sink<DocumentChange> indexSink(WeirConfig config, DocumentPlan plan) {
    return ElasticsearchSink.<DocumentChange>builder()
        .setSettings(ElasticsearchSettings.from(config))
        .setConverter(new DocumentIndex(plan).aliasConverter())
        .setMaxTimeInBufferMs(config.get(SearchIndexOptions.INDEX_FLUSH).toMillis())
        .build();
  }

  /** The uid prefix of a document's operators: stable as long as its index name is. */
  static String uid(DocumentPlan plan) {
    return SearchIndexJob.NAME + "-" + plan.index();
  }
}
