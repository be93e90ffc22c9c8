package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.dlq.DeadLetterProducer;
import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.RefusedDocuments;
import dev.weir.documents.definition.DocumentPlan;
import java.util.Properties;

/**
 * A document the search cluster refuses for good goes to {@code weir.dlq} with the engine's reason,
 * as the job's other dead letters do (at the copy table and version it is kept at): the copy holds
 * it, the index keeps its previous version, and the job goes on.
 */
final class RefusedToDeadLetters implements RefusedDocuments {

  private static final long serialVersionUID = 1L;

  private final String job;
  private final String copyTable;
  private final Properties client;
  private final String topic;

  RefusedToDeadLetters(String job, DocumentPlan plan, WeirConfig config) {
    this.job = job;
    this.copyTable = plan.copyTable();
    this.client = KafkaClients.clientProperties(config);
    this.topic = config.get(WeirOptions.DLQ_TOPIC);
  }

  @Override
  public Sender open() {
    DeadLetterProducer producer = new DeadLetterProducer(client, topic);
    return new Sender() {
      @Override
      public void refused(DocumentOperation op, String reason) {
        producer.send(
            DeadLetters.rejected(
                job,
                new SourcePosition(copyTable, 0, op.version(), null),
                op.source(),
                reason
                    + "; kept in the copy table "
                    + copyTable
                    + " (version "
                    + op.version()
                    + "), not indexed; the index keeps its previous version"));
      }

      @Override
      public void flush() throws Exception {
        producer.flush();
      }

      @Override
      public void close() {
        producer.close();
      }
    };
  }
}
