package dev.weir.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.bench.SearchIndexBenchmark.Load;
import dev.weir.bench.SearchIndexBenchmark.Writes;
import dev.weir.capture.CaptureOptions;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.cli.BundledDocuments;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.search.SearchIndexJob;
import dev.weir.search.SearchIndexOptions;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The search-index on a declared document: today's catalog as schemas/documents/products.json.
 *
 * <ol>
 *   <li><b>fan-out</b>: every product shares one brand; after an untimed rename that warms the
 *       path, the brand renamed once, then ten times in a burst (20 ms apart), each step started
 *       once Elasticsearch runs no merge: seconds until every document shows the new name, and copy
 *       rows and index operations per affected document (1 = each written once);
 *   <li><b>price-only changes</b>: one new price per product through the job; WAL bytes per change
 *       against a hand-written {@code UPDATE} of just the changed columns (price, content_hash,
 *       doc_version) of the same rows, on a copy of the same table in the same run;
 *   <li><b>end to end</b>: documents/s from the start of the topics until the alias counts every
 *       product, against the raw bulk of the documents the job indexed (the median of {@value
 *       SearchIndexBenchmark#RAW_BULK_PASSES} passes).
 * </ol>
 */
public final class DocumentsBenchmark {

  private static final String CATALOG = "bench_documents_catalog";
  private static final String INDEX = "bench-documents";
  private static final int BURST = 10;

  /**
   * A change to a node every document shares, and what reaching every document took: seconds, of
   * which those until the change was readable in the capture's topic (NaN for a raw bulk, which has
   * no capture), the writes, and the CPU seconds each process used over those seconds.
   */
  public record FanOut(
      String name,
      long documents,
      double seconds,
      double readableSeconds,
      long copyRowsUpdated,
      long indexOperations,
      Map<String, Double> cpu) {
    double documentsPerSecond() {
      return documents / seconds;
    }

    /** The share of the {@code cores}' time the processes measured used over the step. */
    double busyShare(int cores) {
      return CpuUse.total(cpu) / (seconds * cores);
    }

    double copyRowsPerDocument() {
      return (double) copyRowsUpdated / documents;
    }

    double indexOperationsPerDocument() {
      return (double) indexOperations / documents;
    }
  }

  /** The end-to-end pass: the job's load and the raw bulk of its documents (its median pass). */
  public record EndToEnd(Load job, Load raw, TableStats copy) {
    double ratio() {
      return job.documentsPerSecond() / raw.documentsPerSecond();
    }
  }

  public record Result(
      int products,
      Instant measured,
      FanOut rename,
      FanOut burst,
      FanOut rawOverwrite,
      FanOut renameOwnCore,
      FanOut rawOverwriteOwnCore,
      Writes declaredWrites,
      Writes handWritten,
      PacedInput.Latency priceLatency,
      EndToEnd declared) {

    /** weir's WAL per price-only change over the hand-written UPDATE's (target at most 1.2). */
    double walOverHandWritten() {
      return ((double) declaredWrites.walBytes() / Math.max(1, declaredWrites.changes()))
          / ((double) handWritten.walBytes() / Math.max(1, handWritten.changes()));
    }

    /**
     * The time until every document showed the shared rename over the time a raw bulk of as many of
     * these documents takes (the end-to-end pass's, in the same run): target at most 2.
     */
    double fanOutOverRawBulk() {
      return rename.seconds() / (rename.documents() / declared.raw().documentsPerSecond());
    }

    /**
     * The rename's time from the moment its change was readable in the capture's topic over the
     * time a raw bulk of as many documents takes: the part of the ratio the search-index job makes.
     */
    double fanOutFromReadableOverRawBulk() {
      return (rename.seconds() - rename.readableSeconds())
          / (rename.documents() / declared.raw().documentsPerSecond());
    }

    /**
     * With Elasticsearch on a core of its own: the rename's time over a raw bulk overwriting the
     * same documents on the same cores. Empty where the cores cannot be separated.
     */
    Optional<Double> fanOutOverRawOwnCore() {
      return renameOwnCore == null || rawOverwriteOwnCore == null
          ? Optional.empty()
          : Optional.of(renameOwnCore.seconds() / rawOverwriteOwnCore.seconds());
    }

    /** The steps of the shared change, in the order of the results table. */
    List<FanOut> fanOuts() {
      return Stream.of(rename, burst, rawOverwrite, renameOwnCore, rawOverwriteOwnCore)
          .filter(Objects::nonNull)
          .toList();
    }
  }

  /** Price changes per second of the paced live input the latency is measured on. */
  static final int LATENCY_RATE = 200;

  /** How long that input runs. */
  static final int LATENCY_SECONDS = 20;

  /** The price every change of that input sets: never one the loader sends (at most 504.99). */
  private static final BigDecimal LIVE_PRICE = new BigDecimal("54321.5");

  private DocumentsBenchmark() {}

  public static Result run(LocalStack stack, int products, Path workDir) throws Exception {
    Instant measured = Instant.now();
    Connections connections = stack.up();
    stack.ensurePostgresDatabase(CATALOG);
    WeirConfig live = config(stack, connections, workDir, "bench_documents_live", INDEX + "-live");
    CatalogCaptureJob.dropSlot(live);
    stack.recreatePostgresDatabase(CATALOG);
    // The definition's topics (it cannot be planned before the catalog has its tables).
    String prefix = live.get(DocumentOptions.CDC_TOPIC_PREFIX);
    KafkaTopics.deleteTopics(
        live,
        List.of(
            prefix + "product",
            prefix + "brand",
            prefix + "category",
            live.get(DocumentOptions.PRICING_TOPIC)));
    SearchCluster es = ElasticsearchConnection.cluster(live);
    try {
      for (String index : es.indices(INDEX + "*")) {
        es.deleteIndex(index);
      }
      String catalogUrl = live.get(DocumentOptions.CATALOG_URL);
      String pricing = live.get(DocumentOptions.PRICING_TOPIC);
      CatalogLoader loader = new CatalogLoader(11);
      loader.load(live, catalogUrl, pricing, products, 1, 0, Duration.ZERO);
      DocumentPlan plan = Definitions.plans(live).get(0);
      String copyTable = plan.copyTable();

      // 1 and 2: the capture and the declared job running, as deployed.
      String alias = INDEX + "-live";
      JobClient capture =
          JobRunner.start(new CatalogCaptureJob(), SearchIndexBenchmark.environment(), live);
      JobClient job =
          JobRunner.start(new SearchIndexJob(), SearchIndexBenchmark.environment(), live);
      FanOut rename;
      FanOut burst;
      FanOut renameOwnCore = null;
      Writes declaredWrites;
      Writes handWritten;
      PacedInput.Latency priceLatency;
      try {
        SearchIndexBenchmark.awaitCount(() -> SearchIndexBenchmark.count(es, alias), products);
        // Steady state, as for the raw bulk's passes: the rename's path warmed by one untimed
        // rename, and each timed step started once Elasticsearch runs no merge of the step before.
        Renames renames =
            new Renames(stack, live, es, alias, copyTable, catalogUrl, prefix + "brand", products);
        renames.run("warmup", 1, "warm-up");
        SearchIndexBenchmark.awaitMergesDone(es);
        rename = renames.run("rename", 1, "one brand rename");
        SearchIndexBenchmark.awaitMergesDone(es);
        burst = renames.run("burst", BURST, BURST + " renames of it, 20 ms apart");
        Writes[] writes = priceOnly(live, loader, pricing, copyTable, products);
        declaredWrites = writes[0];
        handWritten = writes[1];
        priceLatency = priceLatency(live, es, alias, pricing, products);
        if (ElasticsearchCore.possible()) {
          renameOwnCore =
              ElasticsearchCore.run(
                  stack,
                  () -> {
                    SearchIndexBenchmark.awaitMergesDone(es);
                    return renames.run(
                        "owncore", 1, "one brand rename, Elasticsearch on a core of its own");
                  });
        }
      } finally {
        job.cancel().get();
        capture.cancel().get();
      }
      SearchIndexBenchmark.awaitMergesDone(es);
      FanOut rawOverwrite =
          rawOverwrite(
              stack, es, alias, products, "overwritex1", "raw bulk overwriting them (no job)");
      FanOut rawOverwriteOwnCore = null;
      if (renameOwnCore != null) {
        rawOverwriteOwnCore =
            ElasticsearchCore.run(
                stack,
                () -> {
                  SearchIndexBenchmark.awaitMergesDone(es);
                  return rawOverwrite(
                      stack,
                      es,
                      alias,
                      products,
                      "overwritex2",
                      "raw bulk overwriting them, Elasticsearch on a core of its own");
                });
      }

      // 3: end to end from the start of the topics, on a fresh copy and index.
      SearchIndexBenchmark.awaitMergesDone(es);
      WeirConfig declared =
          config(stack, connections, workDir, "bench_documents_declared", INDEX + "-declared");
      EndToEnd declaredPass =
          endToEnd(
              stack,
              es,
              declared,
              INDEX + "-declared",
              new DocumentIndex(plan).mapping(),
              copyTable,
              products,
              "declared");
      return new Result(
          products,
          measured,
          rename,
          burst,
          rawOverwrite,
          renameOwnCore,
          rawOverwriteOwnCore,
          declaredWrites,
          handWritten,
          priceLatency,
          declaredPass);
    } finally {
      CatalogCaptureJob.dropSlot(live);
      es.close();
    }
  }

  /** The shared brand's renames, each step timed from its first commit to the last name shown. */
  private record Renames(
      LocalStack stack,
      WeirConfig config,
      SearchCluster es,
      String alias,
      String copyTable,
      String catalogUrl,
      String brandTopic,
      int products) {

    /**
     * The brand renamed {@code renames} times, each its own transaction, 20 ms apart, to names of
     * the {@code step}: from the first commit until every document of the alias shows the last.
     */
    FanOut run(String step, int renames, String name) throws Exception {
      TableStats copyBefore = copyStats(config, copyTable);
      IndexWork indexBefore = IndexWork.read(es, alias);
      String last =
          step + "x" + renames; // one token, its step's own: the search finds only its own
      try (KafkaConsumer<byte[], byte[]> capture = ReadCommitted.fromEnd(config, brandTopic)) {
        CpuUse cpu = CpuUse.start(stack);
        long start = System.nanoTime();
        try (Connection c = PostgresConnectionProvider.open(config, catalogUrl);
            PreparedStatement rename = c.prepareStatement("UPDATE brand SET name = ?")) {
          for (int i = 1; i <= renames; i++) {
            rename.setString(1, step + "x" + i);
            rename.executeUpdate();
            if (i < renames) {
              Thread.sleep(20);
            }
          }
        }
        // The job reads the capture's topic read_committed: nothing shows the name before this.
        long readable = awaitRecordContaining(capture, last);
        awaitBrandEverywhere(es, alias, last, products);
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Double> used = cpu.seconds();
        Thread.sleep(2_000); // the coalesced writes are done; let any late one land before counting
        long rows = copyStats(config, copyTable).minus(copyBefore).updated();
        long operations = IndexWork.read(es, alias).indexed() - indexBefore.indexed();
        return new FanOut(
            name, products, seconds, (readable - start) / 1e9, rows, operations, used);
      }
    }

    /**
     * When (System.nanoTime) a record holding {@code text} became readable; two minutes at most.
     */
    private long awaitRecordContaining(KafkaConsumer<byte[], byte[]> consumer, String text) {
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
          if (r.value() != null && new String(r.value(), StandardCharsets.UTF_8).contains(text)) {
            return System.nanoTime();
          }
        }
      }
      throw new IllegalStateException(
          "the rename to " + text + " was not readable in " + brandTopic + " within 2 minutes");
    }
  }

  /** Until a search finds the brand {@code name} in all {@code products} documents. */
  private static void awaitBrandEverywhere(
      SearchCluster es, String alias, String name, int products) throws Exception {
    SearchIndexBenchmark.awaitCount(
        () ->
            es.post(
                    "/" + alias + "/_count",
                    dev.weir.schema.Json.mapper()
                        .createObjectNode()
                        .set(
                            "query",
                            dev.weir.schema.Json.mapper()
                                .createObjectNode()
                                .set(
                                    "match",
                                    dev.weir.schema.Json.mapper()
                                        .createObjectNode()
                                        .put("brand_name", name))))
                .path("count")
                .asLong(),
        products);
  }

  /**
   * What a rename's documents cost Elasticsearch alone: the raw bulk of the documents the index
   * holds, each with a new brand name and a higher version, into that index, timed as a rename is
   * (until a search finds the new name in every document). The raw bulk of the end-to-end pass
   * loads a fresh index; a rename overwrites documents (each one's old version looked up and
   * deleted), and this is the raw bulk doing the same.
   */
  private static FanOut rawOverwrite(
      LocalStack stack, SearchCluster es, String alias, int products, String brandName, String step)
      throws Exception {
    List<DocumentOperation> ops = new ArrayList<>();
    for (SearchIndexBenchmark.Indexed d : SearchIndexBenchmark.documents(es, alias)) {
      ObjectNode source = (ObjectNode) dev.weir.schema.Json.mapper().readTree(d.source());
      source.put("brand_name", brandName);
      ops.add(
          DocumentOperation.index(
              alias,
              d.id(),
              d.version() + 1,
              dev.weir.schema.Json.mapper().writeValueAsBytes(source)));
    }
    IndexWork indexBefore = IndexWork.read(es, alias);
    CpuUse cpu = CpuUse.start(stack);
    long start = System.nanoTime();
    RawBulk.send(es, alias, ops, Runtime.getRuntime().availableProcessors());
    awaitBrandEverywhere(es, alias, brandName, products);
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Double> used = cpu.seconds();
    long operations = IndexWork.read(es, alias).indexed() - indexBefore.indexed();
    return new FanOut(step, ops.size(), seconds, Double.NaN, 0, operations, used);
  }

  /**
   * End-to-end latency of a price change: {@link #LATENCY_RATE} changes per second for {@link
   * #LATENCY_SECONDS}, each to another product, while the documents of those sent and not yet seen
   * are read (mget through the alias) every 100 ms. A change's latency is the time of the first
   * read that shows its price, less the time it was sent: Kafka, the join, the copy, the index and
   * its refresh (1 s).
   */
  private static PacedInput.Latency priceLatency(
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
      ObjectNode request = dev.weir.schema.Json.mapper().createObjectNode();
      ids.forEach(request.putArray("ids")::add);
      var docs = es.post("/" + alias + "/_mget", request).path("docs");
      long now = System.currentTimeMillis();
      for (var got : docs) {
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
  private static Writes[] priceOnly(
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
      SearchIndexBenchmark.awaitCount(
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
      Writes declared =
          new Writes(
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
      return new Writes[] {
        declared,
        new Writes(
            "by hand: UPDATE of price, content_hash, doc_version",
            products,
            handBytes,
            handWritten.updated(),
            handWritten.toastInserted(),
            handRecords)
      };
    }
  }

  private static EndToEnd endToEnd(
      LocalStack stack,
      SearchCluster es,
      WeirConfig config,
      String alias,
      String mapping,
      String copyTable,
      int products,
      String name)
      throws Exception {
    SearchIndexBenchmark.forgetOffsets(config);
    JobClient job =
        JobRunner.start(new SearchIndexJob(), SearchIndexBenchmark.environment(), config);
    Load weir;
    try {
      SearchIndexBenchmark.awaitRunning(job);
      long running = System.nanoTime();
      CpuUse cpu = CpuUse.start(stack);
      try (IndexProgress progress = IndexProgress.watch(es, alias)) {
        weir = Load.timed("weir, " + name, products, running, progress, cpu, es, alias);
      }
      weir = weir.settle(es, alias, cpu);
    } finally {
      job.cancel().get();
    }
    Load raw =
        SearchIndexBenchmark.rawBulk(
            stack, es, mapping, SearchIndexBenchmark.documents(es, alias), alias + "-raw");
    return new EndToEnd(weir, raw, copyStats(config, copyTable));
  }

  /** Settings of a declared run: its own copy database and index, the catalog's topics. */
  private static WeirConfig config(
      LocalStack stack, Connections connections, Path workDir, String copy, String index)
      throws IOException {
    WeirConfig base =
        CaptureOptions.ownCatalog(
            BenchDatabases.fresh(stack, connections, copy),
            connections.postgresJdbcUrl(CATALOG),
            CATALOG,
            "bench.documents",
            index);
    Path file =
        BundledDocuments.write(
            workDir.resolve(index + ".json"),
            "products.json",
            index,
            base.get(DocumentOptions.PRICING_TOPIC));
    return base.with(DocumentOptions.DOCUMENTS, file.toString());
  }

  private static TableStats copyStats(WeirConfig config, String table) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return TableStats.read(c, table);
    }
  }

  private static long single(Connection c, String sql) throws Exception {
    try (ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** CPU seconds by process over each step's timed seconds, one column per step. */
  private static void appendCpu(StringBuilder md, List<FanOut> steps) {
    md.append("CPU seconds each process used during each step (Linux /proc; the benchmark JVM is");
    md.append(" the job's MiniCluster, or the raw bulk's client):\n\n| process |");
    Set<String> processes = new TreeSet<>();
    for (FanOut f : steps) {
      md.append(' ').append(f.name()).append(" |");
      processes.addAll(f.cpu().keySet());
    }
    md.append("\n|---|").append("---:|".repeat(steps.size())).append('\n');
    for (String process : processes) {
      md.append("| ").append(process).append(" |");
      for (FanOut f : steps) {
        md.append(String.format(Locale.ROOT, " %.1f |", f.cpu().getOrDefault(process, 0.0)));
      }
      md.append('\n');
    }
    md.append('\n');
  }

  public static String markdown(Result r, String command) {
    StringBuilder md = new StringBuilder();
    md.append("# search-index on a declared document (schemas/documents/products.json)\n\n");
    md.append("Regenerate: `").append(command).append("`  \n");
    md.append(
        String.format(
            Locale.ROOT,
            "Measured: %s, %d cores, the local stack (PostgreSQL with fsync off, one Elasticsearch"
                + " node). Input: a catalog of %,d products (descriptions of ~6 kB, TOASTed), all of"
                + " ONE brand, and a price each; cdc-catalog and the declared search-index job"
                + " running as deployed (coalescing %s).%n%n",
            r.measured(),
            Runtime.getRuntime().availableProcessors(),
            r.products(),
            SearchIndexOptions.COALESCE.defaultValue()));
    md.append("## A change every document shares: the brand of all of them renamed\n\n");
    md.append(
        "Timed from the first rename's commit until a search finds the last name in every"
            + " document, at steady state: after one untimed rename of the same brand (the JIT"
            + " warmed on this path), each step started once Elasticsearch ran no merge, as each"
            + " raw bulk pass is. Copy rows are `n_tup_upd` of the copy table, index operations"
            + " are the index's `indexing.index_total`, both over the step.\n\n");
    md.append(
        "| change | documents | seconds | of which until readable in the capture's topic | documents/s"
            + " | copy rows per document | index operations per document |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|\n");
    for (FanOut f : r.fanOuts()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %.1f | %s | %,.0f | %.2f | %.2f |%n",
              f.name(),
              f.documents(),
              f.seconds(),
              Double.isNaN(f.readableSeconds())
                  ? "–"
                  : String.format(Locale.ROOT, "%.1f", f.readableSeconds()),
              f.documentsPerSecond(),
              f.copyRowsPerDocument(),
              f.indexOperationsPerDocument()));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%n- One rename until every document shows it / a raw bulk of as many of these"
                + " documents (%,.0f/s, the %s, the end-to-end pass below): **%s** (target ≤"
                + " 2×: %s).",
            r.declared().raw().documentsPerSecond(),
            r.declared().raw().passesSummary(),
            BenchReport.shown(r.fanOutOverRawBulk(), 2, "×"),
            r.fanOutOverRawBulk() <= 2 ? "met" : "NOT met"));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- Of the rename's %.1f s, %.1f s passed before the change was readable in the"
                + " capture's topic: cdc-catalog writes it exactly once, committed with its"
                + " checkpoints (`checkpoint.interval`, %s by default), and the job reads"
                + " read_committed. From then until every document showed it: %.1f s, %.2f× the"
                + " raw bulk's time.",
            r.rename().seconds(),
            r.rename().readableSeconds(),
            new CatalogCaptureJob().defaultCheckpointInterval().toSeconds() + " s",
            r.rename().seconds() - r.rename().readableSeconds(),
            r.fanOutFromReadableOverRawBulk()));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- A rename overwrites the documents the index holds: a raw bulk overwriting them,"
                + " timed the same way, ran at %,.0f/s, and the rename took %.2f× its time.",
            r.rawOverwrite().documentsPerSecond(),
            r.rename().seconds() / r.rawOverwrite().seconds()));
    r.fanOutOverRawOwnCore()
        .ifPresent(
            ratio ->
                md.append(
                    String.format(
                        Locale.ROOT,
                        "%n- With Elasticsearch on a core of its own and everything else (the"
                            + " job's JVM, PostgreSQL, Kafka) on the other (`taskset`), the rename"
                            + " took **%.2f×** the time of a raw bulk overwriting the same documents"
                            + " on the same cores (%,.0f against %,.0f documents/s). The judged"
                            + " ratio above is the one on shared cores.",
                        ratio,
                        r.renameOwnCore().documentsPerSecond(),
                        r.rawOverwriteOwnCore().documentsPerSecond())));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- %d renames within %.1f s wrote each document %.2f times to the copy and %.2f times"
                + " to Elasticsearch: a burst to one node shared by every root is coalesced.%n%n",
            BURST,
            (BURST - 1) * 0.02,
            r.burst().copyRowsPerDocument(),
            r.burst().indexOperationsPerDocument()));
    appendCpu(md, r.fanOuts());
    md.append("## Price-only changes: what the copy writes\n\n");
    md.append(
        "One new price per product (after a CHECKPOINT). WAL is the server's"
            + " `pg_current_wal_lsn()` difference over the step; the hand-written side updates a"
            + " copy of the same table, made before the step, to the same final values.\n\n");
    md.append(
        "| | changes | WAL bytes | WAL bytes / change | rows updated | TOAST tuples written |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (Writes w : List.of(r.declaredWrites(), r.handWritten())) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %,d | %,d | %,d | %,d |%n",
              w.name(),
              w.changes(),
              w.walBytes(),
              w.walBytes() / Math.max(1, w.changes()),
              w.rowsUpdated(),
              w.toast()));
    }
    double walRatio = r.walOverHandWritten();
    md.append(
        String.format(
            Locale.ROOT,
            "%n- weir's WAL per change / the hand-written UPDATE's: **%s** (target ≤ 1.2: %s);"
                + " TOAST tuples written by weir: **%d**.%n",
            BenchReport.shown(walRatio, 1.2, ""),
            walRatio <= 1.2 ? "met" : "NOT met",
            r.declaredWrites().toast()));
    md.append(
        "\n| record type | weir: bytes / change | by hand: bytes / change |\n|---|---:|---:|\n");
    java.util.Map<String, long[]> byType = new java.util.TreeMap<>();
    for (WalRecords w : r.declaredWrites().records()) {
      byType.computeIfAbsent(w.type(), k -> new long[2])[0] += w.bytes();
    }
    for (WalRecords w : r.handWritten().records()) {
      byType.computeIfAbsent(w.type(), k -> new long[2])[1] += w.bytes();
    }
    byType.forEach(
        (type, bytes) ->
            md.append(
                String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d |%n",
                    type,
                    bytes[0] / Math.max(1, r.declaredWrites().changes()),
                    bytes[1] / Math.max(1, r.handWritten().changes()))));
    if (r.priceLatency() != null) {
      md.append("\n## A price change until it is searchable\n\n");
      md.append(
          String.format(
              Locale.ROOT,
              "With the job running as deployed, %,d price changes, %d per second, each to another"
                  + " product, while the documents of those sent and not yet seen were read every 100"
                  + " ms (mget through the alias): from a change's send time until a read shows its"
                  + " price, **p50 %,d ms, p99 %,d ms**. That is Kafka, the join (coalescing %s on"
                  + " event time), the copy, the index and its refresh (1 s).%n%n",
              r.priceLatency().events(),
              LATENCY_RATE,
              r.priceLatency().visibleP50(),
              r.priceLatency().visibleP99(),
              SearchIndexOptions.COALESCE.defaultValue()));
    }
    md.append("\n## End to end: documents per second\n\n");
    md.append(
        "The job from the start of the topics (its consumer group deleted) on a fresh copy"
            + " database and index, timed from RUNNING until the alias counts every product; then"
            + " the raw bulk of the documents it indexed, with their versions, "
            + SearchIndexBenchmark.RAW_BULK_PASSES
            + " times, each pass into a fresh index once Elasticsearch runs no merge (one pass on a"
            + " shared machine is noisy): the median pass (after warm-up where measured) is shown"
            + " and compared,"
            + " with the range of the passes. The JVM and Elasticsearch are warm (the live job"
            + " above ran first).\n\n");
    md.append(
        "| job | documents | seconds | documents/s | raw bulk documents/s (median pass) | raw bulk"
            + " range | ratio | copy rows written per document | index operations per document"
            + " |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    EndToEnd e = r.declared();
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %,d | %.1f | %,.0f | %,.0f | %s | %.2f | %.2f | %.2f |%n",
            e.job().name(),
            e.job().documents(),
            e.job().seconds(),
            e.job().documentsPerSecond(),
            e.raw().documentsPerSecond(),
            e.raw().range(),
            e.ratio(),
            (double) (e.copy().inserted() + e.copy().updated()) / e.job().documents(),
            (double) e.job().elasticsearch().indexed() / e.job().documents()));
    md.append(
        String.format(
            Locale.ROOT,
            "%n- weir / the raw bulk of the same documents (%s): **%.2f**.%n",
            r.declared().raw().passesSummary(),
            r.declared().ratio()));
    md.append(
        "\nCPU seconds each process used during the job's timed window (Linux /proc; the"
            + " benchmark JVM is the job's MiniCluster):\n\n| process | declared |\n"
            + "|---|---:|\n");
    new java.util.TreeMap<>(e.job().cpu())
        .forEach(
            (process, seconds) ->
                md.append(String.format(Locale.ROOT, "| %s | %.1f |%n", process, seconds)));
    return md.toString();
  }
}
