package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.job.WeirJob;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.connector.elasticsearch.ElasticsearchSettings;
import dev.weir.connector.elasticsearch.ElasticsearchSink;
import dev.weir.connector.elasticsearch.RefusedDocuments;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.PostgresCatalog;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.search.join.DocumentJoin;
import dev.weir.search.join.SourceRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * search-index: for each document of the definition ({@link Definitions#plans}), the change topics
 * of the tables it names → {@link DocumentJoin} → the copy (changed columns only) → Elasticsearch
 * behind the document's alias (external versions).
 */
public final class SearchIndexJob implements WeirJob {

  public static final String NAME = "search-index";

  /** The most documents one write to the copy holds. */
  private static final int COPY_BATCH = 1000;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> topics(WeirConfig config) {
    List<String> topics = new ArrayList<>(inputs(config));
    topics.add(config.get(WeirOptions.DLQ_TOPIC));
    return topics;
  }

  /** What the job reads: the change topics of the declared tables and the declared topics. */
  public static List<String> inputs(WeirConfig config) {
    return Definitions.topics(config, Definitions.plans(config));
  }

  /** Creates or migrates each document's copy table, and its alias and index. */
  @Override
  public void prepare(WeirConfig config) {
    Definitions.requireOneDocumentPerIndex(Definitions.specs(config));
    Migrations.apply(config);
    ElasticsearchSettings elasticsearch = ElasticsearchConnection.settings(config);
    try (SearchCluster cluster = SearchCluster.connect(elasticsearch)) {
      for (DocumentPlan plan : Definitions.plans(config)) {
        new DocumentIndex(plan).check(cluster);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(ElasticsearchClients.explain(elasticsearch, e), e);
    }
    for (DocumentPlan plan : Definitions.plans(config)) {
      try (Connection c = PostgresConnectionProvider.open(config)) {
        new DocumentCopy(plan).migrate(c);
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot create or migrate the copy table " + plan.copyTable() + ": " + e.getMessage(),
            e);
      }
      try (SearchCluster cluster = SearchCluster.connect(elasticsearch)) {
        new DocumentIndex(plan).ensureAlias(cluster);
      } catch (IOException e) {
        throw new UncheckedIOException(ElasticsearchClients.explain(elasticsearch, e), e);
      }
    }
  }

  @Override
  public void build(StreamExecutionEnvironment env, WeirConfig config) {
    // No object reuse here, unlike activity-feed and identity: measured interleaved, the
    // end-to-end load was slower with it.
    DeadLetters dlq = new DeadLetters(NAME);
    for (DocumentPlan plan : Definitions.plans(config)) {
      index(
          ChangeTopics.read(env, config, dlq, plan),
          plan,
          SearchIndexOptions.joinSettings(config),
          copyWriter(config, plan),
          indexSink(config, plan, new RefusedToDeadLetters(dlq.job(), plan, config)),
          dlq);
    }
    dlq.sinkTo(config);
  }

  /**
   * The job's logic between its sources and its sinks, for one document: its tables' rows (by table
   * or topic name) joined into documents, written to {@code copy}, then indexed through {@code
   * index}; tests call it with their own ends.
   */
  public static void index(
      Map<String, DataStream<SourceRow>> rows,
      DocumentPlan plan,
      DocumentJoin.Settings settings,
      CopyWriteOperator copy,
      Sink<DocumentChange> index,
      DeadLetters dlq) {
    DataStream<DocumentChange> documents = DocumentJoin.join(rows, plan, settings, uid(plan));
    SingleOutputStreamOperator<DocumentChange> copied =
        documents
            .transform("copy " + plan.copyTable(), TypeInformation.of(DocumentChange.class), copy)
            .uid(uid(plan) + "-copy");
    dlq.add(copied.getSideOutput(DeadLetters.TAG));
    SingleOutputStreamOperator<DocumentChange> indexable =
        copied
            .process(new IndexableDocuments(dlq.job(), plan))
            .returns(TypeInformation.of(DocumentChange.class))
            .uid(uid(plan) + "-indexable")
            .name("indexable " + plan.index());
    dlq.add(indexable.getSideOutput(DeadLetters.TAG));
    indexable.sinkTo(index).uid(uid(plan) + "-index").name("Elasticsearch " + plan.index());
  }

  /**
   * The copy of a document in PostgreSQL, written in batches before its documents go on; a column
   * whose source column was widened is widened as a value needs it (the source's catalog read
   * then).
   */
  public static CopyWriteOperator copyWriter(WeirConfig config, DocumentPlan plan) {
    String sourceUrl = Definitions.databaseUrl(config, plan.database());
    return new CopyWriteOperator(
        NAME,
        plan.copyTable(),
        () ->
            new DocumentCopy(plan)
                .store(
                    PostgresConnectionProvider.open(config),
                    (schema, table) -> {
                      try (Connection c = PostgresConnectionProvider.open(config, sourceUrl)) {
                        return new PostgresCatalog(c).table(schema, table);
                      }
                    }),
        config.get(SearchIndexOptions.WRITE_FLUSH).toMillis(),
        COPY_BATCH,
        "the copy " + plan.copyTable() + " at " + config.get(WeirOptions.POSTGRES_URL),
        PostgresTimeouts.of(config));
  }

  /**
   * The search cluster, through the document's alias, with external versions; a document it refuses
   * for good goes to {@code refused}.
   */
  public static Sink<DocumentChange> indexSink(
      WeirConfig config, DocumentPlan plan, RefusedDocuments refused) {
    return ElasticsearchSink.<DocumentChange>builder()
        .setSettings(ElasticsearchConnection.settings(config))
        .setConverter(new DocumentIndex(plan).aliasConverter())
        .setPipeline(plan.search().pipeline())
        .setRefusedDocuments(refused)
        .setMaxTimeInBufferMs(config.get(SearchIndexOptions.INDEX_FLUSH).toMillis())
        .build();
  }

  /** The uid prefix of a document's operators: stable as long as its index name is. */
  static String uid(DocumentPlan plan) {
    return NAME + "-" + plan.index();
  }
}
