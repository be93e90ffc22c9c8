package dev.weir.it.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.job.WeirJob;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.FeedOptions;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityOptions;
import dev.weir.it.Await;
import dev.weir.it.Kafka;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.SearchDocuments;
import dev.weir.it.TestDatabases;
import dev.weir.it.engines.EverySearchEngine;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.Json;
import dev.weir.search.SearchIndexJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every job against the hostile-input corpus ({@code src/test/resources/hostile/}) on the real
 * stack, with valid records all around the bad ones: each hostile record is either processed
 * correctly or in {@code weir.dlq} with its raw bytes and a readable reason, every valid record is
 * processed, and the job never restarts because of what it was sent. The counts are printed.
 */
@ExtendWith(LocalStackExtension.class)
class HostileInputITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(4).build());

  private static final int MAX_BYTES = 64 * 1024;
  private static final int SEARCH_MAX_BYTES = 900 * 1024;
  private static final int VALID = 30;
  private static final List<String> REPORT = new ArrayList<>();

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @AfterAll
  static void printCounts() {
    System.out.println("hostile input, per job:");
    REPORT.forEach(System.out::println);
    REPORT.clear(); // a JVM may run this class once per search engine
  }

  @Test
  void activityFeedProcessesOrDeadLettersEveryRecordAndNeverRestarts(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    WeirConfig config =
        base("it_hostile_feed").with(FeedOptions.TOPIC, "it.hostile.activity." + run);
    HostileCorpus corpus = corpus("activity.events", config.get(FeedOptions.TOPIC));
    List<JsonNode> valid = new ArrayList<>();
    for (int i = 0; i < VALID; i++) {
      valid.add(
          activity(
              "v-" + i,
              "actor-" + i,
              "valid-" + i,
              HostileCorpus.RECENT,
              JsonNodeFactory.instance.objectNode()));
    }

    JobClient job = start(new ActivityFeedJob(), config);
    try {
      corpus.sendAmong(valid.stream().map(HostileCorpus::bytes).toList());

      // Every valid and processed event is one entry of one event (the duplicate counts once),
      // in the hot table or, for the one a thousand years old, already in the archive.
      Map<String, Long> expected =
          Stream.concat(valid.stream(), corpus.processed().stream().map(c -> c.event()))
              .collect(
                  Collectors.toMap(
                      e -> e.get("actor_id").asText() + "|" + e.get("element_id").asText(),
                      e -> 1L,
                      (a, b) -> a,
                      TreeMap::new));
      String url = config.get(WeirOptions.POSTGRES_URL);
      String rows =
          "SELECT actor_id || '|' || element_id || '=' || event_count FROM feed_entry UNION ALL"
              + " SELECT actor_id || '|' || element_id || '=' || event_count FROM feed_archive"
              + " ORDER BY 1";
      List<String> want =
          expected.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted().toList();
      assertThat(
              Await.until(
                  HostileCorpus.patience(),
                  () -> TestDatabases.strings(config, url, rows),
                  want::equals))
          .containsExactlyElementsOf(want);
      // Archived once the watermark passes year 1 + archive-after, which the first watermark
      // does. CI once saw a fresh job that had read the whole burst emit none (cause not found;
      // its source combines its partitions' watermarks over the active ones): event time moves
      // when input goes on, so a later event for another entry follows every poll.
      String archived =
          "SELECT element_id || ' ' || to_char(first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
              + " FROM feed_archive";
      String topic = config.get(FeedOptions.TOPIC);
      AtomicInteger tick = new AtomicInteger();
      assertThat(
              Await.until(
                  HostileCorpus.patience(),
                  () -> {
                    int n = tick.incrementAndGet();
                    String at = Instant.parse(HostileCorpus.RECENT).plusMillis(n).toString();
                    Kafka.produce(
                        topic,
                        0,
                        List.of(
                            activity(
                                    "tick-" + n,
                                    "ticker",
                                    "tick",
                                    at,
                                    JsonNodeFactory.instance.objectNode())
                                .toString()));
                    return TestDatabases.strings(config, url, archived);
                  },
                  r -> !r.isEmpty()))
          .as("the event of year 1 went straight to the archive, on its day")
          .containsExactly("past 0001-01-01");

      report("activity-feed", config, flink, job, valid.size(), corpus);
    } finally {
      job.cancel().get();
    }
  }

  /**
   * Issue 25.1: a 0.6 MB event with 60,000 unknown fields once made a dead letter of megabytes (its
   * reason joined every violation) that the DLQ producer refused; the exactly-once sink threw and
   * the job restarted without end, so no later event was processed. Its dead letter must be
   * written, bounded, and the job go on.
   */
  @Test
  void activityFeedDeadLettersAHugeEventAndGoesOn(@InjectClusterClient RestClusterClient<?> flink)
      throws Exception {
    WeirConfig config =
        base("it_hostile_feed_huge")
            .with(FeedOptions.TOPIC, "it.hostile.activity.huge." + run)
            // The job must read the 0.6 MB event and validate it, not refuse it unread.
            .with(WeirOptions.RECORD_MAX_BYTES, Integer.toString(SEARCH_MAX_BYTES));
    String topic = config.get(FeedOptions.TOPIC);
    HostileCorpus corpus =
        HostileCorpus.load(
            "activity.events.huge", topic, g -> HostileCorpus.generic(g, SEARCH_MAX_BYTES));
    List<JsonNode> valid =
        List.of(
            activity("huge-before", "actor-huge", "before", HostileCorpus.RECENT, empty()),
            activity("huge-after", "actor-huge", "after", HostileCorpus.RECENT, empty()));

    JobClient job = start(new ActivityFeedJob(), config);
    try {
      // before, the huge event (offset 1), after: all to partition 0, in that order.
      corpus.sendAmong(valid.stream().map(HostileCorpus::bytes).toList());

      String url = config.get(WeirOptions.POSTGRES_URL);
      List<String> want = List.of("actor-huge|after=1", "actor-huge|before=1");
      assertThat(
              Await.until(
                  HostileCorpus.patience(),
                  () ->
                      TestDatabases.strings(
                          config,
                          url,
                          "SELECT actor_id || '|' || element_id || '=' || event_count"
                              + " FROM feed_entry ORDER BY 1"),
                  want::equals))
          .as("the valid event sent after the huge one reached feed_entry")
          .containsExactlyElementsOf(want);

      List<DeadLetter> letters =
          Kafka.readCommitted(
                  config.get(WeirOptions.DLQ_TOPIC), HostileCorpus.patience(), r -> !r.isEmpty())
              .stream()
              .map(r -> HostileCorpus.deadLetter(r.value()))
              .toList();
      assertThat(letters).hasSize(1);
      DeadLetter letter = letters.get(0);
      byte[] sent = corpus.cases().get(0).value();
      assertThat(sent.length).as("the event's size").isBetween(600_000, 700_000);
      assertThat(letter.sourceTopic()).isEqualTo(topic);
      assertThat(letter.sourcePartition()).isZero();
      assertThat(letter.sourceOffset()).as("the huge event's offset").isEqualTo(1);
      assertThat(letter.reason())
          .as("a bounded reason: the first violations and how many more")
          .startsWith("violates activity.events v")
          .contains("and 59")
          .contains("more");
      assertThat(letter.reason().length()).as("the reason's length").isLessThanOrEqualTo(8192);
      assertThat(letter.rawValueTruncated()).isTrue();
      assertThat(letter.rawValue().length).isEqualTo(256 * 1024);
      assertThat(letter.reason())
          .as("the marker of the bytes cut")
          .contains((sent.length - 256 * 1024) + " more bytes");
      report("activity-feed 0.6 MB", config, flink, job, valid.size(), corpus);
    } finally {
      job.cancel().get();
    }
  }

  /**
   * Issue 25.1, the other half: when even a bounded dead letter cannot be written (here the DLQ
   * topic deleted under the running job), the job must neither drop the letter nor restart for
   * ever. At the default {@code restart.max-attempts} it used to take about 40 minutes of restarts
   * to fail; now the restart that finds the topic gone fails the job for good, saying so.
   */
  @Test
  void activityFeedFailsNamingTheDlqTopicWhenItCannotWriteThere() throws Exception {
    WeirConfig config =
        base("it_hostile_feed_nodlq")
            .with(FeedOptions.TOPIC, "it.hostile.activity.nodlq." + run)
            // The dead letter's send waits this long for the deleted topic (60 s by default).
            .with(WeirOptions.KAFKA_PRODUCER_MAX_BLOCK, "10 s");
    String topic = config.get(FeedOptions.TOPIC);
    String dlq = config.get(WeirOptions.DLQ_TOPIC);
    JobClient job = start(new ActivityFeedJob(), config);
    try {
      Kafka.produce(
          topic,
          0,
          List.of(
              activity("nodlq-1", "actor-nodlq", "first", HostileCorpus.RECENT, empty())
                  .toString()));
      String url = config.get(WeirOptions.POSTGRES_URL);
      assertThat(
              Await.until(
                  HostileCorpus.patience(),
                  () ->
                      TestDatabases.strings(
                          config, url, "SELECT element_id FROM feed_entry ORDER BY 1"),
                  r -> r.equals(List.of("first"))))
          .as("the job runs")
          .containsExactly("first");

      KafkaTopics.deleteTopics(config, List.of(dlq));
      Kafka.produce(topic, 0, List.of("not JSON: a dead letter for a DLQ that is gone"));
      long sent = System.nanoTime();

      Throwable failure = null;
      try {
        job.getJobExecutionResult().get(5, TimeUnit.MINUTES);
      } catch (ExecutionException e) {
        failure = e;
      }
      Duration took = Duration.ofNanos(System.nanoTime() - sent);
      System.out.printf(
          "DLQ deleted: the job failed %d s after the dead letter%n", took.toSeconds());
      assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
      assertThat(failure).isNotNull();
      assertThat(ExceptionUtils.stringifyException(failure))
          .as("the failure names the DLQ topic and what to do")
          .contains("the dead-letter topic " + dlq + " does not exist")
          .contains("start the job again from its last checkpoint");
    } finally {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get();
      }
    }
  }

  @Test
  void identityProcessesOrDeadLettersEveryRecordAndNeverRestarts(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    WeirConfig config =
        base("it_hostile_identity")
            .with(IdentityOptions.TRACKING_TOPIC, "it.hostile.tracking." + run)
            .with(IdentityOptions.IDENTITY_TOPIC, "it.hostile.identity." + run)
            .with(IdentityOptions.ENRICHED_TOPIC, "it.hostile.enriched." + run);
    HostileCorpus tracking = corpus("tracking.events", config.get(IdentityOptions.TRACKING_TOPIC));
    HostileCorpus identity = corpus("identity.events", config.get(IdentityOptions.IDENTITY_TOPIC));
    List<JsonNode> valid = new ArrayList<>();
    for (int i = 0; i < VALID; i++) {
      ObjectNode e = JsonNodeFactory.instance.objectNode();
      e.put("event_id", "tv-" + i)
          .put("project_id", "p-hostile")
          .put("distinct_id", "dv-" + i)
          .put("name", "page_view")
          .put("time", HostileCorpus.RECENT)
          .putObject("properties")
          .put("n", i);
      valid.add(e);
    }

    JobClient job = start(new IdentityJob(), config);
    try {
      identity.sendAmong(List.of());
      tracking.sendAmong(valid.stream().map(HostileCorpus::bytes).toList());

      // Each valid and processed tracking record once in tracking.enriched (a record sent twice
      // is enriched twice, alike), each with its own id as canonical id: nobody identified them.
      List<String> expected =
          Stream.concat(valid.stream(), tracking.processed().stream().map(c -> c.event()))
              .map(e -> e.get("event_id").asText() + "→" + e.get("distinct_id").asText())
              .sorted()
              .toList();
      List<String> enriched =
          Kafka.readCommitted(
                  config.get(IdentityOptions.ENRICHED_TOPIC),
                  HostileCorpus.patience(),
                  r -> r.size() >= expected.size())
              .stream()
              .map(r -> json(r.value()))
              .map(e -> e.get("event_id").asText() + "→" + e.get("canonical_id").asText())
              .sorted()
              .toList();
      assertThat(enriched).containsExactlyElementsOf(expected);

      String url = config.get(WeirOptions.POSTGRES_URL);
      assertThat(
              Await.until(
                  HostileCorpus.patience(),
                  () ->
                      TestDatabases.strings(
                          config,
                          url,
                          "SELECT distinct_id || ' → ' || canonical_id FROM identity_mapping"
                              + " WHERE distinct_id LIKE 'anon-%'"),
                  r -> !r.isEmpty()))
          .containsExactly("anon-'; DROP TABLE identity_mapping; -- → user-\" OR 1=1");
      assertThat(
              Await.until(
                  HostileCorpus.patience(),
                  () ->
                      TestDatabases.strings(
                          config,
                          url,
                          "SELECT to_char(earliest_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
                              + " FROM identity_mapping WHERE distinct_id = 'd-past'"),
                  r -> r.equals(List.of("0001-01-01"))))
          .as("earliest_seen of the event of year 1")
          .containsExactly("0001-01-01");

      report("identity", config, flink, job, valid.size(), tracking, identity);
    } finally {
      job.cancel().get();
    }
  }

  /** The products document (the bundled products.json): its columns read by their source types. */
  @EverySearchEngine
  @Test
  void searchIndexProcessesOrDeadLettersEveryRecordAndABackfillOfItsCopyMatches(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    String prefix = "it.hostile.cdc." + run + ".";
    String alias = "it-hostile-" + run;
    WeirConfig settings =
        base("it_hostile_search")
            .with(DocumentOptions.CDC_TOPIC_PREFIX, prefix)
            .with(DocumentOptions.PRICING_TOPIC, "it.hostile.pricing." + run)
            .with(DocumentOptions.ALIAS, alias)
            // A product's description may be large; the broker takes records up to 1 MB.
            .with(WeirOptions.RECORD_MAX_BYTES, Integer.toString(SEARCH_MAX_BYTES));
    // The definition is planned against the source's catalog: its tables, empty.
    String catalogDb = "it_hostile_catalog_" + run;
    LocalStackExtension.stack().ensurePostgresDatabase(catalogDb);
    String catalogUrl = LocalStackExtension.connections().postgresJdbcUrl(catalogDb);
    WeirConfig config = settings.with(DocumentOptions.CATALOG_URL, catalogUrl);
    CatalogLoader.createTables(config, catalogUrl);
    String copyTable = Definitions.plans(config).get(0).copyTable();
    HostileCorpus products =
        HostileCorpus.load(
            "cdc.catalog.product",
            prefix + "product",
            g ->
                g.equals("large-description")
                    ? HostileCorpus.bytes(product(9105, "large description", "é".repeat(300_000)))
                    : HostileCorpus.generic(g, SEARCH_MAX_BYTES));
    HostileCorpus prices =
        HostileCorpus.load(
            "pricing.events",
            config.get(DocumentOptions.PRICING_TOPIC),
            g -> HostileCorpus.generic(g, MAX_BYTES));
    List<JsonNode> validProducts = new ArrayList<>();
    List<JsonNode> validPrices = new ArrayList<>();
    for (int i = 1; i <= VALID; i++) {
      validProducts.add(product(i, "valid product " + i, "a description"));
      ObjectNode price = JsonNodeFactory.instance.objectNode();
      price.put("product_id", i).put("price", i + 0.5).put("currency", "EUR").put("version", 1);
      validPrices.add(price);
    }

    JobClient job = start(new SearchIndexJob(), config);
    try {
      Kafka.produce(prefix + "brand", List.of(dimension("brand", 1, "Acme", null)));
      Kafka.produce(prefix + "category", List.of(dimension("category", 1, "Outdoor", null)));
      products.sendAmong(validProducts.stream().map(HostileCorpus::bytes).toList());
      prices.sendAmong(validPrices.stream().map(HostileCorpus::bytes).toList());

      // The documents: every valid product, every processed create (the last name wins), in the
      // copy and behind the alias alike.
      Map<String, String> expected = new TreeMap<>();
      validProducts.forEach(
          p -> expected.put(p.at("/after/id").asText(), p.at("/after/name").asText()));
      for (HostileCorpus.Case c : products.processed()) {
        JsonNode e = c.value() == null ? null : json(c.value());
        JsonNode after =
            e == null ? null : e.has("payload") ? e.at("/payload/after") : e.get("after");
        if (after != null && after.isObject()) {
          expected.put(after.get("id").asText(), after.get("name").asText());
        }
      }
      String url = config.get(WeirOptions.POSTGRES_URL);
      assertThat(
              Await.until(
                  HostileCorpus.patience(), () -> copied(config, url, copyTable), expected::equals))
          .isEqualTo(expected);
      assertThat(
              Await.until(HostileCorpus.patience(), () -> indexed(config, alias), expected::equals))
          .isEqualTo(expected);
      assertThat(
              TestDatabases.strings(
                  config,
                  url,
                  "SELECT product_id || ' ' || (price #>> '{}')::numeric(14,4) FROM "
                      + copyTable
                      + " WHERE product_id IN (9102, 1) ORDER BY product_id"))
          .as("the largest price, not replaced by its older version; a valid price")
          .containsExactly("1 1.5000", "9102 9999999999.9999");

      report("search-index", config, flink, job, 2 * VALID + 2, products, prices);

      // backfill: the copy the hostile run left rebuilds into an index equal to the live one.
      Backfill.Summary rebuilt =
          Backfill.run(
              // Small splits, so that ids from 1 to 2^63 - 1 make several.
              config
                  .with(BackfillOptions.TARGET, alias + "-rebuilt")
                  .with(BackfillOptions.SPLIT_SIZE, "7"),
              false,
              StreamExecutionEnvironment::getExecutionEnvironment,
              (pass, done, total, rate) -> {});
      assertThat(rebuilt.sent()).isEqualTo(expected.size());
      assertThat(indexed(config, alias + "-rebuilt")).isEqualTo(expected);
      REPORT.add(
          String.format(
              "%-13s %4d documents of the hostile run's copy rebuilt into a new index, equal to the"
                  + " live one",
              "backfill", rebuilt.documents()));
    } finally {
      job.cancel().get();
    }
  }

  // --- the jobs and their checks

  private WeirConfig base(String database) {
    return TestDatabases.fresh(LocalStackExtension.config(), database)
        .with(WeirOptions.DLQ_TOPIC, "it.hostile.dlq." + database + "." + run)
        .with(WeirOptions.RECORD_MAX_BYTES, Integer.toString(MAX_BYTES))
        .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
  }

  private static HostileCorpus corpus(String file, String topic) {
    return HostileCorpus.load(file, topic, g -> HostileCorpus.generic(g, MAX_BYTES));
  }

  private static JobClient start(WeirJob job, WeirConfig config) throws Exception {
    return JobRunner.start(job, StreamExecutionEnvironment.getExecutionEnvironment(), config);
  }

  /**
   * Matches the job's dead letters with the corpora, checks the job never restarted, and records
   * the counts.
   */
  private static void report(
      String name,
      WeirConfig config,
      RestClusterClient<?> flink,
      JobClient job,
      int valid,
      HostileCorpus... corpora)
      throws Exception {
    long expected = Stream.of(corpora).mapToLong(HostileCorpus::deadLetters).sum();
    String dlq = config.get(WeirOptions.DLQ_TOPIC);
    Kafka.readCommitted(dlq, HostileCorpus.patience(), r -> r.size() >= expected);
    // A little longer, to see a dead letter no case expects.
    List<DeadLetter> deadLetters =
        Kafka.readCommitted(dlq, Duration.ofSeconds(5), r -> r.size() > expected).stream()
            .map(r -> HostileCorpus.deadLetter(r.value()))
            .toList();
    int lost = 0;
    int processed = 0;
    for (HostileCorpus corpus : corpora) {
      lost += corpus.match(deadLetters);
      processed += corpus.processed().size();
    }
    assertThat(deadLetters)
        .as("dead letters from topics the corpora did not send to")
        .allMatch(d -> Stream.of(corpora).anyMatch(c -> c.topic().equals(d.sourceTopic())));
    long restartedAt =
        flink.getJobDetails(job.getJobID()).get().getTimestamps().get(JobStatus.RESTARTING);
    HostileCorpus.Report report =
        new HostileCorpus.Report(
            name, valid, processed, deadLetters.size(), lost, restartedAt > 0 ? 1 : 0);
    REPORT.add(report.line());
    System.out.println(report.line());
    assertThat(lost).as("hostile records neither processed nor in the DLQ").isZero();
    assertThat(restartedAt).as("the job restarted (at %d)", restartedAt).isZero();
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  private static ObjectNode empty() {
    return JsonNodeFactory.instance.objectNode();
  }

  private static JsonNode activity(
      String id, String actor, String element, String at, ObjectNode details) {
    ObjectNode e = JsonNodeFactory.instance.objectNode();
    e.put("event_id", id)
        .put("workspace_id", "ws-hostile")
        .put("actor_id", actor)
        .put("element_type", "repository")
        .put("element_id", element)
        .put("action", "push")
        .put("occurred_at", at);
    if (!details.isEmpty()) {
      e.set("details", details);
    }
    return e;
  }

  private static long lsn = 1000;

  private static JsonNode product(long id, String name, String description) {
    ObjectNode after = JsonNodeFactory.instance.objectNode();
    after
        .put("id", id)
        .put("sku", "SKU-" + id)
        .put("name", name)
        .put("description", description)
        .put("attributes", "{\"colour\":\"red\"}")
        .put("brand_id", 1)
        .put("category_id", 1)
        .put("updated_at", "2026-11-01T00:00:00Z");
    return envelope("product", after);
  }

  private static String dimension(String table, long id, String name, Long parent) {
    ObjectNode after = JsonNodeFactory.instance.objectNode();
    after.put("id", id).put("name", name);
    if (table.equals("category")) {
      after.put("parent_id", parent);
    }
    return new String(HostileCorpus.bytes(envelope(table, after)));
  }

  private static JsonNode envelope(String table, ObjectNode after) {
    ObjectNode e = JsonNodeFactory.instance.objectNode();
    e.putNull("before");
    e.set("after", after);
    e.putObject("source")
        .put("db", "catalog")
        .put("schema", "public")
        .put("table", table)
        .put("lsn", lsn++)
        .put("ts_ms", 1);
    e.put("op", "c").put("ts_ms", 1);
    return e;
  }

  private static Map<String, String> copied(WeirConfig config, String url, String table)
      throws Exception {
    return TestDatabases.strings(config, url, "SELECT product_id || '\t' || name FROM " + table)
        .stream()
        .map(r -> r.split("\t", 2))
        .collect(Collectors.toMap(r -> r[0], r -> r[1], (a, b) -> b, TreeMap::new));
  }

  /** product id → name of every document in the index or alias. */
  private static Map<String, String> indexed(WeirConfig config, String index) throws Exception {
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      Map<String, String> docs = new TreeMap<>();
      for (JsonNode hit : SearchDocuments.hits(es, index)) {
        docs.put(hit.path("_id").asText(), hit.path("_source").path("name").asText());
      }
      return docs;
    }
  }

  private static JsonNode json(byte[] value) {
    try {
      return Json.mapper().readTree(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
