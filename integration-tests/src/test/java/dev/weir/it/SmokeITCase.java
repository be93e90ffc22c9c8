package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.dlq.DecodedTopics;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.kafka.Watermarks;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.ElasticsearchSink;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The foundation end to end on real services: records produced to Kafka are read by a job on a
 * Flink MiniCluster through weir's Kafka wiring and written to PostgreSQL (Flink's JDBC sink) and
 * Elasticsearch (weir's sink); a malformed record lands on the DLQ with its reason while the job
 * keeps running.
 */
@ExtendWith(LocalStackExtension.class)
class SmokeITCase {

  @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String topic = "it.smoke.activity." + run;
  private final String dlqTopic = "it.smoke.dlq." + run;
  private final String table = "smoke_event";
  private final String index = "it-smoke-" + run;
  private final EventCodec<ActivityEvent> codec =
      EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);

  @Test
  void recordsReachPostgresAndElasticsearchAndABadOneReachesTheDlq() throws Exception {
    WeirConfig config =
        TestDatabases.fresh(LocalStackExtension.config(), "it_smoke")
            .with(WeirOptions.DLQ_TOPIC, dlqTopic)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    try (Connection c = PostgresConnectionProvider.open(config)) {
      c.createStatement()
          .execute(
              "CREATE TABLE "
                  + table
                  + " (event_id text PRIMARY KEY, actor_id text, occurred_at timestamptz)");
    }
    KafkaTopics.createTopicsIfMissing(config, List.of(topic, dlqTopic), 2);
    String malformed = "{\"event_id\": \"bad-1\", \"workspace_id\": ";
    Kafka.produce(topic, List.of(event("e1"), event("e2"), malformed, event("e3")));

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, config);
    DeadLetters dlq = new DeadLetters("smoke");
    DataStream<ActivityEvent> events =
        DecodedTopics.read(
            env,
            config,
            dlq,
            topic,
            codec,
            TypeInformation.of(ActivityEvent.class),
            Watermarks.none(),
            "smoke-activity");
    events
        .sinkTo(
            JdbcSink.<ActivityEvent>builder()
                .withQueryStatement(
                    "INSERT INTO " + table + " VALUES (?, ?, ?) ON CONFLICT (event_id) DO NOTHING",
                    (ps, e) -> {
                      ps.setString(1, e.eventId());
                      ps.setString(2, e.actorId());
                      ps.setTimestamp(3, Timestamp.from(e.occurredAt()));
                    })
                .withExecutionOptions(
                    JdbcExecutionOptions.builder()
                        .withBatchSize(100)
                        .withBatchIntervalMs(200)
                        .build())
                .buildAtLeastOnce(new PostgresConnectionProvider(config)))
        .uid("smoke-postgres");
    String targetIndex = index;
    EventCodec<ActivityEvent> encoder = codec;
    events
        .sinkTo(
            ElasticsearchSink.<ActivityEvent>builder()
                .setSettings(ElasticsearchConnection.settings(config))
                .setConverter(
                    (e, ctx) ->
                        DocumentOperation.index(targetIndex, e.eventId(), 1, encoder.encode(e)))
                .setMaxTimeInBufferMs(200)
                .build())
        .uid("smoke-elasticsearch");
    dlq.sinkTo(config);
    JobClient job = env.executeAsync("smoke");
    try {
      assertThat(
              Await.until(
                  Duration.ofSeconds(60), () -> rowsInPostgres(config), rows -> rows.size() == 3))
          .containsExactlyInAnyOrder("e1", "e2", "e3");
      assertThat(Await.until(Duration.ofSeconds(60), this::documentsInElasticsearch, n -> n == 3))
          .isEqualTo(3L);

      List<ConsumerRecord<byte[], byte[]>> dead =
          Kafka.readCommitted(dlqTopic, Duration.ofSeconds(60), r -> !r.isEmpty());
      assertThat(dead).hasSize(1);
      DeadLetter letter =
          EventCodec.of(EventSchema.DLQ, DeadLetter.class).decode(dead.get(0).value());
      assertThat(letter.job()).isEqualTo("smoke");
      assertThat(letter.sourceTopic()).isEqualTo(topic);
      assertThat(letter.rawValue()).isEqualTo(malformed.getBytes(StandardCharsets.UTF_8));
      assertThat(letter.reason()).startsWith("not valid JSON");

      // The bad record did not stop the job: it is running and keeps processing.
      assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
      Kafka.produce(topic, List.of(event("e4")));
      assertThat(
              Await.until(
                  Duration.ofSeconds(60), () -> rowsInPostgres(config), rows -> rows.size() == 4))
          .contains("e4");
    } finally {
      job.cancel().get();
    }
  }

  private String event(String id) throws Exception {
    return new String(
        codec.encode(
            new ActivityEvent(
                id,
                "acme",
                "ana",
                "repository",
                "acme/weir",
                "push",
                Instant.parse("2021-07-21T06:00:00Z"),
                null)),
        StandardCharsets.UTF_8);
  }

  private List<String> rowsInPostgres(WeirConfig config) throws Exception {
    List<String> ids = new ArrayList<>();
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs = c.createStatement().executeQuery("SELECT event_id FROM " + table)) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  private long documentsInElasticsearch() throws Exception {
    try (SearchCluster es = ElasticsearchConnection.cluster(LocalStackExtension.config())) {
      if (!es.indexExists(index)) {
        return 0;
      }
      es.refresh(index);
      return es.count(index);
    }
  }
}
