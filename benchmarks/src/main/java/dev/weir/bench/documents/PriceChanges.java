package dev.weir.bench.documents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.PacedInput;
import dev.weir.bench.support.WalRecords;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.schema.Json;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Price-only changes through the declared job: the WAL they write against a hand-written UPDATE of
 * the same rows, and how long one takes until it is searchable.
 */
final class PriceChanges {
  /** Price changes per second of the paced live input the latency is measured on. */
  static final int LATENCY_RATE = 200;

  /** How long that input runs. */
  static final int LATENCY_SECONDS = 20;

  /** The price every change of that input sets: never one the loader sends (at most 504.99). */
  private static final BigDecimal LIVE_PRICE = new BigDecimal("54321.5");

  private PriceChanges() {}

  /**
   * End-to-end latency of a price change: {@link #LATENCY_RATE} changes per second for {@link
   * #LATENCY_SECONDS}, each to another product, while the documents of those sent and not yet seen
   * are read (mget through the alias) every 100 ms. A change's latency is the time of the first
   * read that shows its price, less the time it was sent: Kafka, the join, the copy, the index and
   * its refresh (1 s).
   */
  static PacedInput.Latency latency(
      WeirConfig config, SearchCluster es, String alias, String pricing, int products)
      throws Exception {
    int total = Math.min(products, LATENCY_RATE * LATENCY_SECONDS);
    long[] sentAt = new long[total + 1]; // by product id
    long[] visible = new long[total];
    boolean[] seen = new boolean[total + 1];
    long version = System.currentTimeMillis() + 2_000_000;
    PacedInput sender =
        new PacedInput(
            config,
            "bench-live-prices",
            LATENCY_RATE,
            total,
            (producer, i) -> {
              int id = i + 1;
              sentAt[id] = System.currentTimeMillis();
              producer.send(
                  pricing,
                  Integer.toString(id).getBytes(StandardCharsets.UTF_8),
                  String.format(
                          Locale.ROOT,
                          "{\"product_id\":%d,\"price\":%s,\"currency\":\"EUR\",\"version\":%d}",
                          id,
                          LIVE_PRICE.toPlainString(),
                          version)
                      .getBytes(StandardCharsets.UTF_8));
            });
    int seenCount = 0;
    int oldestUnseen = 1;
    long deadline = System.nanoTime() + Duration.ofSeconds(LATENCY_SECONDS + 120L).toNanos();
    while (seenCount < total && System.nanoTime() < deadline) {
      Thread.sleep(100);
      int sentSoFar = sender.sent();
      List<String> ids = new ArrayList<>();
      for (int id = oldestUnseen; id <= sentSoFar; id++) {
        if (!seen[id]) {
          ids.add(Integer.toString(id));
        }
      }
      if (ids.isEmpty()) {
        continue;
      }
      ObjectNode request = Json.mapper().createObjectNode();
      ids.forEach(request.putArray("ids")::add);
      JsonNode docs = es.post("/" + alias + "/_mget", request).path("docs");
      long now = System.currentTimeMillis();
      for (JsonNode got : docs) {
        if (got.path("found").asBoolean()
            && got.path("_source").path("price").decimalValue().compareTo(LIVE_PRICE) == 0) {
          int id = Integer.parseInt(got.path("_id").asText());
          seen[id] = true;
          visible[seenCount++] = now - sentAt[id];
        }
      }
      while (oldestUnseen <= sentSoFar && seen[oldestUnseen]) {
        oldestUnseen++;
      }
    }
    sender.close();
    if (seenCount < total) {
      throw new IllegalStateException(
          "only " + seenCount + " of " + total + " live prices became searchable in 2 minutes");
    }
    PacedInput.Latency latency = PacedInput.Latency.of(visible);
    System.out.printf(
        "price change to a searchable document: p50 %d ms, p99 %d ms%n",
        latency.visibleP50(), latency.visibleP99());
    return latency;
  }

  /**
   * A new price for every product through the job, then the same final prices written by hand to a
   * copy of the table as it was before: {@code UPDATE … SET price, content_hash, doc_version}.
   */
  static CopyWrites[] writes(
      WeirConfig config, CatalogLoader loader, String pricing, String copyTable, int products)
      throws Exception {
    String hand = copyTable + "_by_hand";
    try (Connection c = PostgresConnectionProvider.open(config)) {
      c.createStatement().execute("DROP TABLE IF EXISTS " + hand);
      c.createStatement()
          .execute("CREATE TABLE " + hand + " (LIKE " + copyTable + " INCLUDING ALL)");
      c.createStatement().execute("INSERT INTO " + hand + " SELECT * FROM " + copyTable);
      c.createStatement()
          .execute("CREATE TEMP TABLE held AS SELECT doc_id, doc_version FROM " + copyTable);
      TableStats before = TableStats.read(c, copyTable);
      c.createStatement().execute("CHECKPOINT");
      String wal = TableStats.walPosition(c);
      long version = System.currentTimeMillis() + 1_000_000;
      try (EventProducer producer = new EventProducer(config)) {
        for (long id = 1; id <= products; id++) {
          producer.send(
              pricing,
              Long.toString(id).getBytes(StandardCharsets.UTF_8),
              loader.price(id, version));
        }
        producer.flush();
      }
      BenchEnvironment.awaitCount(
          () ->
              single(
                  c,
                  "SELECT count(*) FROM "
                      + copyTable
                      + " d JOIN held h USING (doc_id) WHERE d.doc_version > h.doc_version"),
          products);
      long walBytes = TableStats.walBytesSince(c, wal);
      List<WalRecords> records = WalRecords.between(c, wal, TableStats.walPosition(c));
      TableStats written = TableStats.read(c, copyTable).minus(before);
      CopyWrites declared =
          new CopyWrites(
              "weir, products.json: only the changed columns",
              products,
              walBytes,
              written.updated(),
              written.toastInserted(),
              records);

      // By hand: the same final values of the changed columns, in batches of 500 per transaction.
      TableStats handBefore = TableStats.read(c, hand);
      c.createStatement().execute("CHECKPOINT");
      String handWal = TableStats.walPosition(c);
      c.setAutoCommit(false);
      try (PreparedStatement update =
              c.prepareStatement(
                  "UPDATE "
                      + hand
                      + " SET price = ?::jsonb, content_hash = ?, doc_version = ? WHERE doc_id = ?");
          ResultSet rows =
              c.createStatement()
                  .executeQuery(
                      "SELECT price::text, content_hash, doc_version, doc_id FROM " + copyTable)) {
        int n = 0;
        while (rows.next()) {
          update.setString(1, rows.getString(1));
          update.setObject(2, rows.getObject(2));
          update.setLong(3, rows.getLong(3));
          update.setString(4, rows.getString(4));
          update.addBatch();
          if (++n % 500 == 0) {
            update.executeBatch();
            c.commit();
          }
        }
        update.executeBatch();
        c.commit();
      }
      c.setAutoCommit(true);
      long handBytes = TableStats.walBytesSince(c, handWal);
      List<WalRecords> handRecords = WalRecords.between(c, handWal, TableStats.walPosition(c));
      TableStats handWritten = TableStats.read(c, hand).minus(handBefore);
      return new CopyWrites[] {
        declared,
        new CopyWrites(
            "by hand: UPDATE of price, content_hash, doc_version",
            products,
            handBytes,
            handWritten.updated(),
            handWritten.toastInserted(),
            handRecords)
      };
    }
  }

  private static long single(Connection c, String sql) throws Exception {
    try (ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
