package dev.weir.connector.elasticsearch;

import java.util.Objects;
import org.apache.flink.connector.base.sink.writer.ElementConverter;

/** Builds an {@link ElasticsearchSink}; defaults suit bulk indexing of small documents. */
public final class ElasticsearchSinkBuilder<T> {

  private ElementConverter<T, DocumentOperation> converter;
  private ElasticsearchSettings settings;
  private String pipeline;
  private RefusedDocuments refusals;
  private int maxBatchSize = 1000;
  private int maxInFlightRequests = 2;
  // Two batches waiting besides those in flight keep Elasticsearch busy. More only holds documents
  // in the heap and in every checkpoint (the sink's state is what it buffers), and lets the job
  // run far ahead of what is searchable.
  private int maxBufferedRequests = 2_000;
  private long maxBatchSizeInBytes = 5L << 20;
  private long maxTimeInBufferMs = 1000;
  private long maxRecordSizeInBytes = MAX_DOCUMENT_BYTES;

  /**
   * The largest operation the sink takes; a larger one would fail the job at every retry, so jobs
   * whose documents can grow past it divert them first (the declared documents do).
   */
  public static final long MAX_DOCUMENT_BYTES = 1L << 20;

  ElasticsearchSinkBuilder() {}

  /** Turns an element into its bulk operation (index or delete, with its external version). */
  public ElasticsearchSinkBuilder<T> setConverter(
      ElementConverter<T, DocumentOperation> converter) {
    this.converter = converter;
    return this;
  }

  public ElasticsearchSinkBuilder<T> setSettings(ElasticsearchSettings settings) {
    this.settings = settings;
    return this;
  }

  /** The ingest pipeline every indexed document goes through (null: none). */
  public ElasticsearchSinkBuilder<T> setPipeline(String pipeline) {
    this.pipeline = pipeline;
    return this;
  }

  /**
   * Where a document the cluster refuses for good goes (null, the default: the refusal fails the
   * job).
   */
  public ElasticsearchSinkBuilder<T> setRefusedDocuments(RefusedDocuments refusals) {
    this.refusals = refusals;
    return this;
  }

  public ElasticsearchSinkBuilder<T> setMaxBatchSize(int maxBatchSize) {
    this.maxBatchSize = maxBatchSize;
    return this;
  }

  public ElasticsearchSinkBuilder<T> setMaxInFlightRequests(int maxInFlightRequests) {
    this.maxInFlightRequests = maxInFlightRequests;
    return this;
  }

  /** How long a partial batch may wait: the bound on how stale the index can be. */
  public ElasticsearchSinkBuilder<T> setMaxTimeInBufferMs(long maxTimeInBufferMs) {
    this.maxTimeInBufferMs = maxTimeInBufferMs;
    return this;
  }

  public ElasticsearchSink<T> build() {
    return new ElasticsearchSink<>(
        Objects.requireNonNull(converter, "converter"),
        Objects.requireNonNull(settings, "settings"),
        pipeline,
        refusals,
        maxBatchSize,
        maxInFlightRequests,
        maxBufferedRequests,
        maxBatchSizeInBytes,
        maxTimeInBufferMs,
        maxRecordSizeInBytes);
  }
}
