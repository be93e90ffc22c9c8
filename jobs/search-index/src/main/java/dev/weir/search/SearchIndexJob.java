package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.job.WeirJob;
import dev.weir.common.postgres.Migrations;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * search-index: for each document of the definition ({@link SearchIndexOptions#DOCUMENTS}, by
 * default the bundled products definition), the change topics of the tables it names → {@link
 * dev.weir.search.join.DocumentJoin} → the copy (changed columns only) → Elasticsearch behind the
 * document's alias (external versions). See {@link DeclaredDocuments} for each step.
 */
public final class SearchIndexJob implements WeirJob {

  public static final String NAME = "search-index";

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

  @Override
  public void prepare(WeirConfig config) {
    Migrations.apply(config);
    for (DocumentPlan plan : Definitions.plans(config)) {
      DeclaredDocuments.prepare(config, plan);
    }
  }

  @Override
  public void build(StreamExecutionEnvironment env, WeirConfig config) {
    // No object reuse here, unlike activity-feed and identity: measured interleaved, it made the
    // end-to-end load slower (separate-cores pass 675/s against 742/s without).
    DeadLetters dlq = new DeadLetters(NAME);
    for (DocumentPlan plan : Definitions.plans(config)) {
      DataStream<DocumentChange> documents = DeclaredDocuments.documents(env, config, dlq, plan);
      DeclaredDocuments.indexable(DeclaredDocuments.written(documents, config, plan), dlq, plan)
          .sinkTo(DeclaredDocuments.indexSink(config, plan))
          .uid(DeclaredDocuments.uid(plan) + "-index")
          .name("Elasticsearch " + plan.index());
    }
    dlq.sinkTo(config);
  }
}
