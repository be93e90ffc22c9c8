package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.dlq.DecodedTopics;
import dev.weir.common.kafka.Watermarks;
import dev.weir.documents.Definitions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.DeclaredRow;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.search.join.ChangeRows;
import dev.weir.search.join.SourceRow;
import dev.weir.search.join.TopicRows;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The sources of a declared document: the change topic of each table it names (Debezium's envelope)
 * and each topic it reads, as rows, decoded and checked at the source.
 */
public final class ChangeTopics {

  private ChangeTopics() {}

  /**
   * The rows of every table of a document, decoded and checked (bad events to the DLQ), by the
   * table's (or topic's) name.
   */
  public static Map<String, DataStream<SourceRow>> read(
      StreamExecutionEnvironment env, WeirConfig config, DeadLetters dlq, DocumentPlan plan) {
    Map<String, DataStream<SourceRow>> rows = new LinkedHashMap<>();
    for (DocumentPlan.Source source : plan.sources().values()) {
      String name = source.isTopic() ? source.topic() : source.name();
      String uid = SearchIndexJob.uid(plan) + "-" + name;
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
                  Definitions.topic(config, plan, source),
                  EventCodec.of(EventSchema.CDC_CATALOG, ChangeEvent.class),
                  new ChangeRows(
                      plan.index(),
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
        SearchIndexOptions.positive(config, SearchIndexOptions.CHANGE_LAG));
  }
}
