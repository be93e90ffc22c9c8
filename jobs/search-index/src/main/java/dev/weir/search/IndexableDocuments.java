package dev.weir.search;

import dev.weir.common.dlq.DeadLetters;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.connector.elasticsearch.ElasticsearchSinkBuilder;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentSource;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Lets through the documents one Elasticsearch write takes, and sends a larger one to the DLQ with
 * its id and size. A declared document joins rows without bound (a book with 50,000 reviews): the
 * sink would refuse it, and fail the job at every retry. The copy holds it whole; the index keeps
 * the document's previous version until a smaller one comes.
 */
public final class IndexableDocuments extends ProcessFunction<DocumentChange, DocumentChange> {

  private static final long serialVersionUID = 1L;

  private final String job;
  private final String index;
  private final String copyTable;
  private final List<String> fieldNames;
  private final long maxBytes;
  private transient Counter tooLarge;

  public IndexableDocuments(String job, DocumentPlan plan, long maxBytes) {
    this.job = job;
    this.index = plan.index();
    this.copyTable = plan.copyTable();
    this.fieldNames = plan.documentFields().stream().map(DocumentPlan.DocumentField::name).toList();
    this.maxBytes = maxBytes;
  }

  public IndexableDocuments(String job, DocumentPlan plan) {
    this(job, plan, ElasticsearchSinkBuilder.MAX_DOCUMENT_BYTES - 1024);
  }

  @Override
  public void open(OpenContext context) {
    tooLarge = getRuntimeContext().getMetricGroup().counter("weirDocumentsTooLargeToIndex");
  }

  @Override
  public void processElement(DocumentChange d, Context ctx, Collector<DocumentChange> out) {
    if (d.deleted || DocumentSource.sizeAtLeast(fieldNames, d.values) <= maxBytes) {
      out.collect(d);
      return;
    }
    tooLarge.inc();
    byte[] document = DocumentSource.json(fieldNames, d.values, d.contentHash);
    ctx.output(
        DeadLetters.TAG,
        DeadLetters.rejected(
            job,
            new SourcePosition(copyTable, 0, d.version, null),
            document,
            String.format(
                "document '%s' of %s is %,d bytes as JSON, over the %,d that one Elasticsearch"
                    + " write takes: kept in the copy table %s (version %d), not indexed; the"
                    + " index keeps its previous version",
                d.id, index, document.length, maxBytes, copyTable, d.version)));
  }
}
