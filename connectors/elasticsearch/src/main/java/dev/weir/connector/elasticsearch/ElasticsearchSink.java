package dev.weir.connector.elasticsearch;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.connector.base.sink.AsyncSinkBase;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.ElementConverter;
import org.apache.flink.connector.base.sink.writer.config.AsyncSinkWriterConfiguration;
import org.apache.flink.connector.base.sink.writer.strategy.AIMDScalingStrategy;
import org.apache.flink.connector.base.sink.writer.strategy.CongestionControlRateLimitingStrategy;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A sink to Elasticsearch 8 or 9 or OpenSearch 2 on Flink's {@link AsyncSinkBase}: bulk requests as
 * NDJSON over the low-level REST client (the same on each engine), buffered entries checkpointed
 * (at-least-once), retries on 429/5xx and on an unreachable cluster, a clear failure on a rejected
 * document (e.g. a mapping error). A version conflict under external versioning means the index
 * already holds a newer document: it is counted, not retried. Documents carry their routing, and go
 * through an ingest pipeline when one is named.
 */
public class ElasticsearchSink<T> extends AsyncSinkBase<T, DocumentOperation> {

  private static final long serialVersionUID = 1L;

  /** Metric: documents sent in bulk requests. */
  public static final String DOCUMENTS_SENT = "weirDocumentsSent";

  /** Metric: documents the index refused as older than what it holds (external versions). */
  public static final String DOCUMENTS_STALE = "weirDocumentsStale";

  /** Metric: documents the cluster refused for good, set aside ({@link RefusedDocuments}). */
  public static final String DOCUMENTS_REFUSED = "weirDocumentsRefused";

  private final ElasticsearchSettings settings;
  private final String pipeline;
  private final RefusedDocuments refusals;

  ElasticsearchSink(
      ElementConverter<T, DocumentOperation> converter,
      ElasticsearchSettings settings,
      String pipeline,
      RefusedDocuments refusals,
      int maxBatchSize,
      int maxInFlightRequests,
      int maxBufferedRequests,
      long maxBatchSizeInBytes,
      long maxTimeInBufferMs,
      long maxRecordSizeInBytes) {
    super(
        converter,
        maxBatchSize,
        maxInFlightRequests,
        maxBufferedRequests,
        maxBatchSizeInBytes,
        maxTimeInBufferMs,
        maxRecordSizeInBytes);
    this.settings = settings;
    this.pipeline = pipeline;
    this.refusals = refusals;
  }

  public static <T> ElasticsearchSinkBuilder<T> builder() {
    return new ElasticsearchSinkBuilder<>();
  }

  @Override
  public StatefulSinkWriter<T, BufferedRequestState<DocumentOperation>> createWriter(
      InitContext context) throws IOException {
    return new ElasticsearchSinkWriter<>(
        getElementConverter(),
        context,
        writerConfiguration(),
        settings,
        pipeline,
        refusals,
        List.of());
  }

  @Override
  public StatefulSinkWriter<T, BufferedRequestState<DocumentOperation>> restoreWriter(
      InitContext context, Collection<BufferedRequestState<DocumentOperation>> recoveredState)
      throws IOException {
    return new ElasticsearchSinkWriter<>(
        getElementConverter(),
        context,
        writerConfiguration(),
        settings,
        pipeline,
        refusals,
        recoveredState);
  }

  @Override
  public SimpleVersionedSerializer<BufferedRequestState<DocumentOperation>>
      getWriterStateSerializer() {
    return new DocumentOperationStateSerializer();
  }

  private AsyncSinkWriterConfiguration writerConfiguration() {
    return AsyncSinkWriterConfiguration.builder()
        .setMaxBatchSize(getMaxBatchSize())
        .setMaxBatchSizeInBytes(getMaxBatchSizeInBytes())
        .setMaxInFlightRequests(getMaxInFlightRequests())
        .setMaxBufferedRequests(getMaxBufferedRequests())
        .setMaxTimeInBufferMS(getMaxTimeInBufferMS())
        .setMaxRecordSizeInBytes(getMaxRecordSizeInBytes())
        // Flink's default starts at one batch's documents in flight and adds 10 per answered
        // request: a second bulk was rarely sent before the first was answered, and Elasticsearch
        // waited between bulks while the next was written and sent. All of them may be in flight.
        .setRateLimitingStrategy(
            CongestionControlRateLimitingStrategy.builder()
                .setMaxInFlightRequests(getMaxInFlightRequests())
                .setInitialMaxInFlightMessages(getMaxBatchSize() * getMaxInFlightRequests())
                .setScalingStrategy(
                    AIMDScalingStrategy.builder(getMaxBatchSize() * getMaxInFlightRequests())
                        .build())
                .build())
        .build();
  }
}
