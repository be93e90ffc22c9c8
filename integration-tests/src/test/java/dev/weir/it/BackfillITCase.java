package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillException;
import dev.weir.backfill.BackfillJob;
import dev.weir.backfill.BackfillOptions;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.copy.DocumentCopyStore;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.engines.EverySearchEngine;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * weir backfill on the real stack: the products document's copy in PostgreSQL → a new index, while
 * a writer does what the streaming job's two sinks do (the copy through {@link DocumentCopyStore},
 * the alias with external versions).
 */
@EverySearchEngine
@ExtendWith(LocalStackExtension.class)
class BackfillITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(4).build());

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private String alias;
  private WeirConfig config;
  private DocumentPlan plan;
  private SearchCluster es;

  @BeforeEach
  void copyAndOldIndex() throws Exception {
    config =
        TestDatabases.withFreshCatalog(
                TestDatabases.fresh(LocalStackExtension.config(), "it_backfill"),
                "it.backfill",
                run)
            .with(BackfillOptions.SETTLE, "2 s")
            .with(BackfillOptions.SPLIT_SIZE, "100");
    alias = config.get(DocumentOptions.ALIAS);
    plan = Definitions.plans(config).get(0);
    // The copy table and the alias's first index, as the streaming job's start makes them.
    new SearchIndexJob().prepare(config);
    es = ElasticsearchConnection.cluster(config);
  }

  @Test
  void aRebuildWhileStreamingEndsEqualToTheCopySwapsAtomicallyAndAReRunSendsAlmostNothing()
      throws Exception {
    seed(1500);
    AtomicBoolean streaming = new AtomicBoolean(true);
    AtomicReference<Throwable> streamFailure = new AtomicReference<>();
    Thread streamer = new Thread(() -> stream(streaming, streamFailure), "streaming writer");
    AtomicLong searches = new AtomicLong();
    AtomicReference<String> badSearch = new AtomicReference<>();
    AtomicBoolean searching = new AtomicBoolean(true);
    Thread searcher =
        new Thread(
            () -> {
              while (searching.get()) {
                try {
                  long n = es.count(alias);
                  searches.incrementAndGet();
                  if (n < 1000) {
                    badSearch.compareAndSet(null, "the alias counted " + n + " documents");
                  }
                } catch (Exception e) {
                  badSearch.compareAndSet(null, e.toString());
                }
              }
            },
            "searcher");
    streamer.start();
    searcher.start();
    Backfill.Summary first;
    try {
      first = backfill(alias + "-v2", true);
    } finally {
      streaming.set(false);
      streamer.join();
      Thread.sleep(500);
      searching.set(false);
      searcher.join();
    }
    assertThat(streamFailure.get()).isNull();
    assertThat(first.swapped()).isTrue();
    assertThat(first.sent()).isGreaterThanOrEqualTo(1500);
    assertThat(first.steps().keySet())
        .containsExactly(
            Backfill.STEP_START,
            Backfill.STEP_COPY,
            Backfill.STEP_REFRESH,
            Backfill.STEP_SWAP,
            Backfill.STEP_SETTLE,
            Backfill.STEP_CATCH_UP,
            Backfill.STEP_DELETES);
    // The alias answered throughout: never an error, never an empty or partial index.
    assertThat(badSearch.get()).isNull();
    assertThat(searches.get()).isGreaterThan(10);
    assertThat(es.indicesBehind(alias)).containsExactly(alias + "-v2");
    // Every update made during the rebuild is in the new index, none regressed, deletes included.
    assertThat(indexed(alias + "-v2")).isEqualTo(copy());

    Backfill.Summary again = backfill(alias + "-v2", false);
    assertThat(again.sent()).isZero();
    assertThat(again.skippedUnchanged()).isEqualTo(again.documents());
    assertThat(again.bytesSent()).isLessThanOrEqualTo(first.bytesSent() / 100);
  }

  @Test
  void aBackfillKilledMidwayResumesWithoutResendingWhatWasDone() throws Exception {
    // Enough that the first run is still going when it is killed.
    List<DocumentChange> docs = seedCopy(20_000);
    WeirConfig target =
        config.with(BackfillOptions.TARGET, alias + "-v2").with(WeirOptions.PARALLELISM, "1");
    JobClient killed =
        JobRunner.start(
            new BackfillJob(), StreamExecutionEnvironment.getExecutionEnvironment(), target);
    long before =
        Await.until(
            Duration.ofSeconds(60),
            () -> {
              es.refresh(alias + "-v2");
              return es.count(alias + "-v2");
            },
            n -> n >= 500);
    killed.cancel().get();
    es.refresh(alias + "-v2");
    long held = es.count(alias + "-v2");
    assertThat(held).as("killed midway").isBetween(before, docs.size() - 1L);

    Backfill.Summary resumed = backfill(alias + "-v2", false);
    assertThat(resumed.skippedUnchanged()).isGreaterThanOrEqualTo(held);
    assertThat(resumed.sent()).isEqualTo(docs.size() - resumed.skippedUnchanged());
    assertThat(indexed(alias + "-v2")).isEqualTo(copy());
  }

  @Test
  void aDocumentTheTargetRefusesEndsTheRunWithItsReasonAndLeavesTheAliasWhereItWas()
      throws Exception {
    seed(200);
    String target = alias + "-v2";
    new DocumentIndex(plan).create(es, target);
    // A refusal retrying cannot fix (403): an index someone made read-only.
    SearchDocuments.blockWrites(es, target, true);
    try {
      assertThatThrownBy(() -> backfill(target, true))
          .isInstanceOf(BackfillException.class)
          .hasMessageContaining("copy pass failed")
          .hasMessageContaining("The search cluster rejected index " + target + "/")
          .hasMessageContaining("cluster_block_exception");
      assertThat(es.indicesBehind(alias)).containsExactly(alias + "-v1");
    } finally {
      SearchDocuments.blockWrites(es, target, false);
    }
  }

  private Backfill.Summary backfill(String target, boolean swap) throws Exception {
    return Backfill.run(
        config.with(BackfillOptions.TARGET, target),
        swap,
        StreamExecutionEnvironment::getExecutionEnvironment,
        (pass, done, total, rate) -> {});
  }

  /** The same documents in the copy and behind the alias, as the streaming job leaves them. */
  /**
   * As {@link JobGraphSecretsITCase} checks the streaming jobs (backfill's build reads the copy).
   */
  @Test
  void theJobGraphHoldsNoPassword() throws Exception {
    WeirConfig withTarget = config.with(BackfillOptions.TARGET, alias + "-graph");

    String graph = JobGraphSecretsITCase.serializedGraph(new BackfillJob(), withTarget);

    assertThat(graph).as("the graph's size").hasSizeGreaterThan(10_000);
    assertThat(graph).doesNotContain(withTarget.postgresPassword());
  }

  private void seed(int products) throws Exception {
    for (DocumentChange d : seedCopy(products)) {
      index(d);
    }
    // Searchable before anyone counts them (the refresh interval is a second).
    es.refresh(alias);
  }

  /** Documents in the copy only. */
  private List<DocumentChange> seedCopy(int products) throws Exception {
    List<DocumentChange> docs = new ArrayList<>();
    for (long id = 1; id <= products; id++) {
      docs.add(doc(id, 64 * id, "9.99"));
    }
    try (DocumentCopyStore copy = copyWriter()) {
      for (int from = 0; from < docs.size(); from += 1000) {
        copy.write(docs.subList(from, Math.min(from + 1000, docs.size())));
      }
    }
    return docs;
  }

  private DocumentCopyStore copyWriter() throws SQLException {
    return new DocumentCopy(plan).store(PostgresConnectionProvider.open(config));
  }

  /** Price changes and a few deletes, written as the streaming job's sinks write them. */
  private void stream(AtomicBoolean streaming, AtomicReference<Throwable> failure) {
    Random random = new Random(1);
    long round = 1;
    try (DocumentCopyStore store = copyWriter()) {
      while (streaming.get()) {
        long id = 1 + random.nextInt(1500);
        long version = 64 * id + 1_000_000 * round++;
        if (random.nextInt(20) == 0) {
          store.write(List.of(DocumentChange.deletion(Long.toString(id), version)));
          // Not applied when already deleted (404) or newer (409).
          SearchDocuments.delete(es, alias, Long.toString(id), version);
        } else {
          DocumentChange d = doc(id, version, (1 + random.nextInt(9000)) / 100.0 + "");
          store.write(List.of(d));
          index(d);
        }
        Thread.sleep(5);
      }
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  private void index(DocumentChange d) throws Exception {
    // Not applied when a newer version is there (409).
    SearchDocuments.index(es, alias, d.id, d.version, new DocumentIndex(plan).document(d));
  }

  /** A product's document, whole (written as new: on conflict only a newer version applies). */
  private DocumentChange doc(long id, long version, String price) {
    ObjectNode fields = Json.mapper().createObjectNode();
    fields.put("product_id", id);
    fields.put("sku", "SKU-" + id);
    fields.put("name", "Product " + id);
    fields.put("description", ("A long description of product " + id + ". ").repeat(40));
    fields.putObject("attributes").put("colour", "red");
    fields.put("brand_id", 1 + id % 7);
    fields.put("category_id", 11L);
    fields.put("updated_at", "2026-11-21T10:00:00Z");
    fields.put("brand_name", "Brand " + (1 + id % 7));
    fields.putArray("category_path").add("Outdoor").add("Hiking");
    fields.put("price", new BigDecimal(price));
    fields.put("currency", "EUR");
    return DocumentChange.whole(plan, Long.toString(id), fields, version);
  }

  /** document id → version#content hash, of the copy. */
  private Map<String, String> copy() throws Exception {
    Map<String, String> rows = new TreeMap<>();
    try (var c = PostgresConnectionProvider.open(config);
        var rs =
            c.createStatement()
                .executeQuery(
                    "SELECT doc_id, doc_version, encode(content_hash, 'hex') FROM "
                        + plan.copyTable())) {
      while (rs.next()) {
        rows.put(rs.getString(1), rs.getLong(2) + "#" + rs.getString(3));
      }
    }
    return rows;
  }

  /** document id → version#content hash, of an index. */
  private Map<String, String> indexed(String index) throws Exception {
    es.refresh(index);
    Map<String, String> docs = new TreeMap<>();
    JsonNode after = null;
    while (true) {
      ObjectNode search = Json.mapper().createObjectNode().put("size", 5_000).put("version", true);
      search.putArray("sort").add("product_id");
      if (after != null) {
        search.set("search_after", after);
      }
      JsonNode hits = es.search(index, search).path("hits").path("hits");
      if (hits.isEmpty()) {
        return docs;
      }
      for (JsonNode hit : hits) {
        docs.put(
            hit.path("_id").asText(),
            hit.path("_version").asLong()
                + "#"
                + hit.path("_source").path("content_hash").asText());
      }
      after = hits.get(hits.size() - 1).get("sort");
    }
  }
}
