package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.dlq.DecodedTopics;
import dev.weir.common.kafka.Watermarks;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.connector.elasticsearch.ElasticsearchSettings;
import dev.weir.connector.elasticsearch.ElasticsearchSink;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.DeclaredRow;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.search.join.ChangeRows;
import dev.weir.search.join.DocumentJoin;
import dev.weir.search.join.SourceRow;
import dev.weir.search.join.TopicRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The stream of each declared document ({@link Definitions}): its tables' change topics, decoded,
 * joined, written to the copy, and indexed.
 */
public final class DeclaredDocuments {

  private DeclaredDocuments() {}

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
              ? DecodedTopics.read(
                  env,
                  config,
                  dlq,
                  source.topic(),
                  EventCodec.of(eventSchema(source), DeclaredRow.class),
                  new TopicRows(
                      source,
                      Definitions.keyColumns(plan, source),
                      DocumentIndex.flattenedColumns(plan, source)),
                  TypeInformation.of(SourceRow.class),
                  changeTimes(config),
                  uid)
              : DecodedTopics.read(
                  env,
                  config,
                  dlq,
                  Definitions.topic(config, source),
                  EventCodec.of(EventSchema.CDC_CATALOG, ChangeEvent.class),
                  new ChangeRows(
                      source,
                      Definitions.keyColumns(plan, source),
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
   * step with the others ({@link Watermarks#caughtUp}).
   */
  private static Watermarks<SourceRow> changeTimes(WeirConfig config) {
    return Watermarks.caughtUp(
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
    ElasticsearchSettings elasticsearch = ElasticsearchConnection.settings(config);
    try {
      new DocumentIndex(plan).ensureAlias(elasticsearch);
    } catch (IOException e) {
      throw new UncheckedIOException(ElasticsearchClients.explain(elasticsearch, e), e);
    }
  }

  /**
   * The documents written to the copy, as the copy now holds them (see {@link CopyWriteOperator}).
   */
  static DataStream<DocumentChange> written(
      DataStream<DocumentChange> documents, WeirConfig config, DocumentPlan plan) {
    return documents
        .transform(
            "copy " + plan.copyTable(),
            TypeInformation.of(DocumentChange.class),
            new CopyWriteOperator(
                () -> new DocumentCopy(plan).store(PostgresConnectionProvider.open(config)),
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
        .setSettings(ElasticsearchConnection.settings(config))
        .setConverter(new DocumentIndex(plan).aliasConverter())
        .setMaxTimeInBufferMs(config.get(SearchIndexOptions.INDEX_FLUSH).toMillis())
        .build();
  }

  /** The uid prefix of a document's operators: stable as long as its index name is. */
  static String uid(DocumentPlan plan) {
    return SearchIndexJob.NAME + "-" + plan.index();
  }
}
