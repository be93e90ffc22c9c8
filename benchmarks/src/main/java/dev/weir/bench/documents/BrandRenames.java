package dev.weir.bench.documents;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.bench.documents.DocumentsBenchmark.FanOut;
import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CpuUse;
import dev.weir.bench.support.IndexWork;
import dev.weir.bench.support.IndexedDocument;
import dev.weir.bench.support.RawBulk;
import dev.weir.bench.support.ReadCommitted;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.schema.Json;
import dev.weir.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The shared brand's renames, each step timed from its first commit until every document shows the
 * last name; and the raw bulk that overwrites the same documents, timed the same way.
 */
record BrandRenames(
    LocalStack stack,
    WeirConfig config,
    SearchCluster es,
    String alias,
    String copyTable,
    String catalogUrl,
    String brandTopic,
    int products) {

  /**
   * The brand renamed {@code renames} times, each its own transaction, 20 ms apart, to names of the
   * {@code step}: from the first commit until every document of the alias shows the last.
   */
  FanOut run(String step, int renames, String name) throws Exception {
    TableStats copyBefore = DocumentsBenchmark.copyStats(config, copyTable);
    IndexWork indexBefore = IndexWork.read(es, alias);
    String last = step + "x" + renames; // one token, its step's own: the search finds only its own
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
      long rows = DocumentsBenchmark.copyStats(config, copyTable).minus(copyBefore).updated();
      long operations = IndexWork.read(es, alias).indexed() - indexBefore.indexed();
      return new FanOut(name, products, seconds, (readable - start) / 1e9, rows, operations, used);
    }
  }

  /** When (System.nanoTime) a record holding {@code text} became readable; two minutes at most. */
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

  /** Until a search finds the brand {@code name} in all {@code products} documents. */
  private static void awaitBrandEverywhere(
      SearchCluster es, String alias, String name, int products) throws Exception {
    BenchEnvironment.awaitCount(
        () -> es.post("/" + alias + "/_count", matching("brand_name", name)).path("count").asLong(),
        products);
  }

  /** A query body matching {@code text} in {@code field}. */
  private static ObjectNode matching(String field, String text) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.putObject("query").putObject("match").put(field, text);
    return body;
  }

  /**
   * What a rename's documents cost Elasticsearch alone: the raw bulk of the documents the index
   * holds, each with a new brand name and a higher version, into that index, timed as a rename is
   * (until a search finds the new name in every document). The raw bulk of the end-to-end pass
   * loads a fresh index; a rename overwrites documents (each one's old version looked up and
   * deleted), and this is the raw bulk doing the same.
   */
  static FanOut rawOverwrite(
      LocalStack stack, SearchCluster es, String alias, int products, String brandName, String step)
      throws Exception {
    List<DocumentOperation> ops = new ArrayList<>();
    for (IndexedDocument d : IndexedDocument.readAll(es, alias)) {
      ObjectNode source = (ObjectNode) Json.mapper().readTree(d.source());
      source.put("brand_name", brandName);
      ops.add(
          DocumentOperation.index(
              alias, d.id(), d.version() + 1, Json.mapper().writeValueAsBytes(source)));
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
}
