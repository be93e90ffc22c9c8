package dev.weir.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.PacedInput;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.Json;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A change shared by many documents while other changes flow: with cdc-catalog and search-index
 * running after the initial sync, orders change at a steady rate (each its own order, its {@code
 * revision} and note), and after a warm-up the hot brand, held by a tenth of the documents, is
 * renamed: timed from its commit until a search finds the new name in every one of them. Every
 * tenth order change is followed from its commit until a search returns its revision.
 */
final class ScaleFanOut {

  /**
   * @param before the order changes committed in the warm-up before the rename
   * @param during those committed from the rename's commit until every document showed it
   * @param cpu the CPU seconds of each process from the rename's commit until every document showed
   *     it (the other order changes' share included)
   */
  record Result(
      long documents,
      double seconds,
      int changeRate,
      long changesSent,
      PacedInput.Latency before,
      PacedInput.Latency during,
      Map<String, Double> cpu) {
    double documentsPerSecond() {
      return documents / seconds;
    }

    /**
     * The bound the other changes' p99 during the rename is held to, in ms: the rename's own time
     * plus their p99 before it. A change waits at most for the rename's documents ahead of it in
     * the job's queues, which are first in, first out.
     */
    long boundMs() {
      return Math.round(seconds * 1000) + before.visibleP99();
    }
  }

  private static final Duration WARM_UP = Duration.ofSeconds(15);
  private static final int MEASURED_EVERY = 10;

  private ScaleFanOut() {}

  static Result run(
      WeirConfig config,
      String storeUrl,
      long roots,
      long hotDocuments,
      int changeRate,
      Map<String, Long> processes,
      Consumer<String> log)
      throws Exception {
    String alias = config.get(DocumentOptions.ALIAS);
    try (SearchCluster es = ElasticsearchConnection.cluster(config);
        OrderChanges changes = new OrderChanges(config, storeUrl, roots, changeRate, es, alias)) {
      Thread.sleep(WARM_UP.toMillis());
      String name = "Renamed brand " + System.nanoTime();
      CpuUse cpu = CpuUse.start(processes);
      long renamed;
      try (Connection c = PostgresConnectionProvider.open(config, storeUrl);
          PreparedStatement rename = c.prepareStatement("UPDATE brand SET name = ? WHERE id = ?")) {
        rename.setString(1, name);
        rename.setLong(2, ScaleStore.HOT_BRAND);
        rename.executeUpdate();
        renamed = System.nanoTime();
      }
      log.accept(
          "fan-out: brand " + ScaleStore.HOT_BRAND + " renamed, " + hotDocuments + " documents");
      long deadline = renamed + Duration.ofMinutes(30).toNanos();
      while (countTerm(es, alias, "lines.product.brand.keyword", name) < hotDocuments) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the rename did not reach every document in 30 minutes");
        }
        Thread.sleep(100);
      }
      long shown = System.nanoTime();
      Map<String, Double> cpuSeconds = cpu.seconds();
      log.accept(
          String.format("fan-out: every document shows it after %.1f s", (shown - renamed) / 1e9));
      changes.stopAndDrain(Duration.ofMinutes(5));
      return new Result(
          hotDocuments,
          (shown - renamed) / 1e9,
          changeRate,
          changes.sent(),
          changes.latency(renamed - WARM_UP.toNanos() / 2, renamed),
          changes.latency(renamed, shown),
          cpuSeconds);
    }
  }

  /** Documents of {@code index} whose keyword {@code field} holds {@code value}. */
  private static long countTerm(SearchCluster es, String index, String field, String value)
      throws IOException {
    ObjectNode query = Json.mapper().createObjectNode();
    query.putObject("query").putObject("term").put(field, value);
    return es.post("/" + index + "/_count", query).path("count").asLong();
  }

  /**
   * The value of the numeric field {@code field} in each of the documents {@code ids} a search
   * finds (one not found is left out): what is searchable now, not what a realtime get reads.
   */
  private static Map<String, Long> searchField(
      SearchCluster es, String index, Collection<String> ids, String field) throws IOException {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("size", ids.size()).put("_source", false);
    ArrayNode values = body.putObject("query").putObject("ids").putArray("values");
    ids.forEach(values::add);
    body.putArray("docvalue_fields").add(field);
    Map<String, Long> found = new HashMap<>();
    for (JsonNode h : es.search(index, body).path("hits").path("hits")) {
      found.put(h.path("_id").asText(), h.path("fields").path(field).path(0).asLong());
    }
    return found;
  }

  /**
   * Order changes at a steady rate, each an UPDATE of one order that holds no product of the hot
   * brand (its revision, and a note naming it), sent every 10 ms, in turn through those orders;
   * every {@value #MEASURED_EVERY}th followed until a search returns its revision.
   */
  private static final class OrderChanges implements AutoCloseable {
    /** A followed change: its order, its revision, its commit (nanoTime) and when it was seen. */
    private static final class Followed {
      final String order;
      final long revision;
      final long committed;
      long seen = -1;

      Followed(String order, long revision, long committed) {
        this.order = order;
        this.revision = revision;
        this.committed = committed;
      }
    }

    private final List<Followed> followed = new ArrayList<>();
    private final Map<String, Deque<Followed>> outstanding = new HashMap<>();
    private final AtomicBoolean sending = new AtomicBoolean(true);
    private final AtomicBoolean watching = new AtomicBoolean(true);
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread sender;
    private final Thread watcher;
    private long sent;

    OrderChanges(
        WeirConfig config, String storeUrl, long roots, int rate, SearchCluster es, String alias) {
      sender = new Thread(() -> send(config, storeUrl, roots, rate), "order-changes");
      watcher = new Thread(() -> watch(es, alias), "order-changes-seen");
      sender.start();
      watcher.start();
    }

    private void send(WeirConfig config, String storeUrl, long roots, int rate) {
      try (Connection c = PostgresConnectionProvider.open(config, storeUrl);
          PreparedStatement update =
              c.prepareStatement(
                  "UPDATE orders o SET revision = v.r, note = 'changed, revision ' || v.r"
                      + " FROM (SELECT unnest(?::bigint[]) AS id, unnest(?::bigint[]) AS r) v"
                      + " WHERE o.id = v.id")) {
        long start = System.nanoTime();
        long order = 0;
        long revision = 0;
        while (sending.get()) {
          long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
          List<Long> ids = new ArrayList<>();
          List<Long> revisions = new ArrayList<>();
          while (revision < due) {
            order = order % roots + 1;
            if (order % 10 == 0) {
              continue; // an order of the hot brand: the rename's
            }
            ids.add(order);
            revisions.add(++revision);
          }
          if (!ids.isEmpty()) {
            update.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            update.setArray(2, c.createArrayOf("bigint", revisions.toArray()));
            update.executeUpdate();
            long committed = System.nanoTime();
            synchronized (this) {
              sent += ids.size();
              for (int i = 0; i < ids.size(); i++) {
                if (revisions.get(i) % MEASURED_EVERY == 0) {
                  Followed f = new Followed(ids.get(i).toString(), revisions.get(i), committed);
                  followed.add(f);
                  outstanding.computeIfAbsent(f.order, k -> new ArrayDeque<>()).add(f);
                }
              }
            }
          }
          Thread.sleep(10);
        }
      } catch (Exception e) {
        failure.set(e);
      }
    }

    private void watch(SearchCluster es, String alias) {
      try {
        while (watching.get()) {
          List<String> orders;
          synchronized (this) {
            orders = new ArrayList<>(outstanding.keySet());
          }
          for (int from = 0; from < orders.size(); from += 5_000) {
            Map<String, Long> revisions =
                searchField(
                    es,
                    alias,
                    orders.subList(from, Math.min(orders.size(), from + 5_000)),
                    "revision");
            long now = System.nanoTime();
            synchronized (this) {
              revisions.forEach(
                  (order, revision) -> {
                    Deque<Followed> waiting = outstanding.get(order);
                    while (waiting != null
                        && !waiting.isEmpty()
                        && waiting.peek().revision <= revision) {
                      waiting.poll().seen = now;
                    }
                    if (waiting != null && waiting.isEmpty()) {
                      outstanding.remove(order);
                    }
                  });
            }
          }
          Thread.sleep(200);
        }
      } catch (Exception e) {
        failure.set(e);
      }
    }

    synchronized long sent() {
      return sent;
    }

    /** Stops sending and waits until every followed change was seen. */
    void stopAndDrain(Duration timeout) throws Exception {
      sending.set(false);
      sender.join();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (failure.get() != null) {
          throw new IllegalStateException("order changes failed", failure.get());
        }
        synchronized (this) {
          if (outstanding.isEmpty()) {
            return;
          }
        }
        Thread.sleep(200);
      }
      throw new IllegalStateException("order changes not searchable after " + timeout);
    }

    /** The latency of the followed changes committed from {@code from} until {@code until}. */
    synchronized PacedInput.Latency latency(long from, long until) {
      long[] millis =
          followed.stream()
              .filter(f -> f.committed >= from && f.committed < until && f.seen >= 0)
              .mapToLong(f -> (f.seen - f.committed) / 1_000_000)
              .toArray();
      return millis.length == 0 ? new PacedInput.Latency(0, -1, -1) : PacedInput.Latency.of(millis);
    }

    @Override
    public void close() throws InterruptedException {
      sending.set(false);
      watching.set(false);
      sender.join();
      watcher.join();
    }
  }
}
