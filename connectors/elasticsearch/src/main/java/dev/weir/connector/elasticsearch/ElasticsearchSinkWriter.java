package dev.weir.connector.elasticsearch;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriter;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.ElementConverter;
import org.apache.flink.connector.base.sink.writer.ResultHandler;
import org.apache.flink.connector.base.sink.writer.config.AsyncSinkWriterConfiguration;
import org.apache.flink.metrics.Counter;
import org.apache.http.entity.ContentType;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.ResponseListener;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class ElasticsearchSinkWriter<T> extends AsyncSinkWriter<T, DocumentOperation> {

  private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchSinkWriter.class);
  private static final long MAX_BACKOFF_MS = 10_000;

  private static final ContentType NDJSON = ContentType.create("application/x-ndjson");

  private final RestClient rest;
  private final String pipeline;
  private final RefusedDocuments.Sender refusals;
  private final Counter sent;
  private final Counter stale;
  private final Counter refused;
  private long backoffMs;
  private volatile boolean closed;

  ElasticsearchSinkWriter(
      ElementConverter<T, DocumentOperation> converter,
      Sink.InitContext context,
      AsyncSinkWriterConfiguration configuration,
      ElasticsearchSettings settings,
      String pipeline,
      RefusedDocuments refusals,
      Collection<BufferedRequestState<DocumentOperation>> state) {
    super(converter, context, configuration, state);
    try {
      this.refusals = refusals == null ? null : refusals.open();
    } catch (Exception e) {
      throw new IllegalStateException("cannot open where refused documents go: " + e, e);
    }
    this.rest = ElasticsearchClients.rest(settings);
    this.pipeline = pipeline;
    this.sent = context.metricGroup().counter(ElasticsearchSink.DOCUMENTS_SENT);
    this.stale = context.metricGroup().counter(ElasticsearchSink.DOCUMENTS_STALE);
    this.refused = context.metricGroup().counter(ElasticsearchSink.DOCUMENTS_REFUSED);
  }

  @Override
  protected void submitRequestEntries(
      List<DocumentOperation> entries, ResultHandler<DocumentOperation> result) {
    List<DocumentOperation> operations = DocumentOperation.withoutSuperseded(entries);
    stale.inc(entries.size() - operations.size());
    Request request = new Request("POST", BulkRequest.ENDPOINT);
    try {
      request.setEntity(SearchCluster.entity(BulkRequest.body(operations, pipeline), NDJSON));
    } catch (IOException e) {
      result.completeExceptionally(e);
      return;
    }
    rest.performRequestAsync(
        request,
        new ResponseListener() {
          @Override
          public void onSuccess(Response response) {
            List<BulkOutcome.Item> items;
            try (InputStream in = response.getEntity().getContent()) {
              items = BulkRequest.items(in);
            } catch (IOException | RuntimeException e) {
              onFailure(e);
              return;
            }
            try {
              answered(operations, items, result);
            } catch (RuntimeException e) {
              result.completeExceptionally(e);
            }
          }

          @Override
          public void onFailure(Exception error) {
            if (closed) {
              // Our own close() cut the request (the task is cancelled or failing over): the
              // entries come back from the last checkpoint, nothing to retry or warn about.
              LOG.debug("bulk of {} documents cut by closing the sink", operations.size(), error);
              return;
            }
            // Unreachable or overloaded cluster, or the whole bulk refused (e.g. a 429 for all of
            // it): keep the entries and try again after a pause.
            retryLater(
                operations,
                result,
                error instanceof ResponseException e
                    ? SearchCluster.error("POST /_bulk", e).getMessage()
                    : error.toString());
          }
        });
  }

  /**
   * What the bulk's items say of each operation (the alias guards' items, last, say nothing). A
   * refused document is set aside, durably, before the bulk counts as done: the checkpoint that
   * follows waits for it, so nothing is lost on a crash (it may be set aside twice after one).
   */
  private void answered(
      List<DocumentOperation> operations,
      List<BulkOutcome.Item> items,
      ResultHandler<DocumentOperation> result) {
    BulkOutcome outcome = BulkOutcome.of(operations, items);
    sent.inc(outcome.succeeded);
    stale.inc(outcome.stale);
    String failure = outcome.failure().orElse(null);
    if (failure == null && !outcome.refused.isEmpty()) {
      failure = setAside(outcome.refused);
    }
    if (failure != null) {
      result.completeExceptionally(new ElasticsearchSinkException(failure));
    } else if (!outcome.retry.isEmpty()) {
      retryLater(outcome.retry, result, outcome.retry.size() + " documents refused (429/5xx)");
    } else {
      backoffMs = 0;
      result.complete();
    }
  }

  /** Sets the refused documents aside; returns why the job must fail instead, or null. */
  private String setAside(List<BulkOutcome.Refusal> refusedNow) {
    if (refusals == null) {
      return refusedNow.get(0).reason();
    }
    try {
      for (BulkOutcome.Refusal r : refusedNow) {
        LOG.warn("set aside: {}", r.reason());
        refusals.refused(r.operation(), r.reason());
      }
      refusals.flush();
    } catch (Exception e) {
      return "could not set aside "
          + refusedNow.size()
          + " refused documents ("
          + refusedNow.get(0).reason()
          + "): "
          + e;
    }
    refused.inc(refusedNow.size());
    return null;
  }

  private void retryLater(
      List<DocumentOperation> operations, ResultHandler<DocumentOperation> result, String why) {
    backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(100, backoffMs * 2));
    LOG.warn(
        "bulk of {} documents will be retried in {} ms: {}", operations.size(), backoffMs, why);
    CompletableFuture.delayedExecutor(backoffMs, TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              try {
                result.retryForEntries(operations);
              } catch (RejectedExecutionException closed) {
                // The task stopped meanwhile (cancelled or failing over): the entries are in the
                // last checkpoint's state or will be replayed, nothing to retry here.
                LOG.debug("retry dropped, the sink is closed", closed);
              }
            });
  }

  @Override
  protected long getSizeInBytes(DocumentOperation op) {
    return op.sizeInBytes();
  }

  @Override
  public void close() {
    closed = true;
    try {
      rest.close();
    } catch (IOException e) {
      LOG.warn("closing the Elasticsearch client failed", e);
    }
    if (refusals != null) {
      try {
        refusals.close();
      } catch (Exception e) {
        LOG.warn("closing where refused documents go failed", e);
      }
    }
  }
}
