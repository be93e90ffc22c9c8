package dev.weir.connector.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchAsyncClient;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import co.elastic.clients.util.BinaryData;
import co.elastic.clients.util.ContentType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriter;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.ElementConverter;
import org.apache.flink.connector.base.sink.writer.ResultHandler;
import org.apache.flink.connector.base.sink.writer.config.AsyncSinkWriterConfiguration;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class ElasticsearchSinkWriter<T> extends AsyncSinkWriter<T, DocumentOperation> {

  private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchSinkWriter.class);
  private static final long MAX_BACKOFF_MS = 10_000;

  private final RestClientTransport transport;
  private final ElasticsearchAsyncClient client;
  private final Counter sent;
  private final Counter stale;
  private long backoffMs;
  private volatile boolean closed;

  ElasticsearchSinkWriter(
      ElementConverter<T, DocumentOperation> converter,
      Sink.InitContext context,
      AsyncSinkWriterConfiguration configuration,
      ElasticsearchSettings settings,
      Collection<BufferedRequestState<DocumentOperation>> state) {
    super(converter, context, configuration, state);
    this.transport = ElasticsearchClients.transport(settings);
    this.client = new ElasticsearchAsyncClient(transport);
    this.sent = context.metricGroup().counter(ElasticsearchSink.DOCUMENTS_SENT);
    this.stale = context.metricGroup().counter(ElasticsearchSink.DOCUMENTS_STALE);
  }

  @Override
  protected void submitRequestEntries(
      List<DocumentOperation> entries, ResultHandler<DocumentOperation> result) {
    List<DocumentOperation> operations = DocumentOperation.withoutSuperseded(entries);
    stale.inc(entries.size() - operations.size());
    List<BulkOperation> bulk =
        operations.stream().map(ElasticsearchSinkWriter::toBulk).collect(Collectors.toList());
    bulk.addAll(aliasGuards(operations));
    BulkRequest request = new BulkRequest.Builder().operations(bulk).build();
    client
        .bulk(request)
        .whenComplete(
            (response, error) -> {
              if (error != null && closed) {
                // Our own close() cut the request (the task is cancelled or failing over): the
                // entries come back from the last checkpoint, nothing to retry or warn about.
                LOG.debug("bulk of {} documents cut by closing the sink", operations.size(), error);
                return;
              }
              if (error != null) {
                // Unreachable or overloaded cluster: keep the entries and try again after a pause.
                retryLater(operations, result, error.toString());
                return;
              }
              // The items of the alias guards, after the operations', say nothing of their own.
              List<BulkOutcome.Item> items = items(response);
              BulkOutcome outcome =
                  BulkOutcome.of(
                      operations, items.subList(0, Math.min(items.size(), operations.size())));
              sent.inc(outcome.succeeded);
              stale.inc(outcome.stale);
              if (outcome.failure().isPresent()) {
                result.completeExceptionally(
                    new ElasticsearchSinkException(outcome.failure().get()));
              } else if (!outcome.retry.isEmpty()) {
                retryLater(
                    outcome.retry, result, outcome.retry.size() + " documents refused (429/5xx)");
              } else {
                backoffMs = 0;
                result.complete();
              }
            });
  }

  private void retryLater(
      List<DocumentOperation> operations, ResultHandler<DocumentOperation> result, String why) {
    backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(100, backoffMs * 2));
    LOG.warn(
        "Elasticsearch bulk of {} documents will be retried in {} ms: {}",
        operations.size(),
        backoffMs,
        why);
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

  private static List<BulkOutcome.Item> items(BulkResponse response) {
    return response.items().stream()
        .map(ElasticsearchSinkWriter::item)
        .collect(Collectors.toList());
  }

  private static BulkOutcome.Item item(BulkResponseItem item) {
    ErrorCause error = item.error();
    return new BulkOutcome.Item(
        item.status(), error == null ? null : error.type(), error == null ? null : error.reason());
  }

  /** The id of an alias guard's update: no document has it. */
  static final String GUARD_ID = "_weir_require_alias_guard";

  private static final byte[] EMPTY_UPDATE = "{\"doc\":{}}".getBytes(StandardCharsets.UTF_8);

  /**
   * Elasticsearch has no {@code require_alias} for a delete, and a delete with an external version
   * to a missing alias creates an index of its name like an index operation does. A bulk that
   * deletes through an alias it does not also index into gets one guard per such alias: an empty
   * update of a document that does not exist, with {@code require_alias}. Elasticsearch creates no
   * missing index that any operation of the bulk requires to be an alias, so with the alias gone
   * the deletes fail (404, index_not_found_exception) instead; with it there, the guard changes
   * nothing (404, document_missing_exception).
   */
  private static List<BulkOperation> aliasGuards(List<DocumentOperation> operations) {
    Set<String> deleted = new LinkedHashSet<>();
    Set<String> indexed = new HashSet<>();
    for (DocumentOperation op : operations) {
      if (op.requiresAlias()) {
        (op.isDelete() ? deleted : indexed).add(op.index());
      }
    }
    deleted.removeAll(indexed);
    List<BulkOperation> guards = new ArrayList<>();
    for (String alias : deleted) {
      guards.add(
          BulkOperation.of(
              b ->
                  b.<Object, Object>update(
                      u ->
                          u.index(alias)
                              .id(GUARD_ID)
                              .requireAlias(true)
                              .binaryAction(
                                  BinaryData.of(EMPTY_UPDATE, ContentType.APPLICATION_JSON)))));
    }
    return guards;
  }

  private static BulkOperation toBulk(DocumentOperation op) {
    boolean versioned = op.version() != DocumentOperation.NO_VERSION;
    if (op.isDelete()) {
      return BulkOperation.of(
          b ->
              b.delete(
                  d -> {
                    d.index(op.index()).id(op.id());
                    return versioned
                        ? d.version(op.version()).versionType(VersionType.External)
                        : d;
                  }));
    }
    return BulkOperation.of(
        b ->
            b.index(
                i -> {
                  i.index(op.index())
                      .id(op.id())
                      .document(BinaryData.of(op.source(), ContentType.APPLICATION_JSON));
                  if (op.requiresAlias()) {
                    i.requireAlias(true);
                  }
                  return versioned ? i.version(op.version()).versionType(VersionType.External) : i;
                }));
  }

  @Override
  protected long getSizeInBytes(DocumentOperation op) {
    return op.sizeInBytes();
  }

  @Override
  public void close() {
    closed = true;
    try {
      transport.close();
    } catch (IOException e) {
      LOG.warn("closing the Elasticsearch client failed", e);
    }
  }
}
