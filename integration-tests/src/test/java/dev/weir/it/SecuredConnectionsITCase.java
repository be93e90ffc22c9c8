package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.job.WeirJob;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.FeedOptions;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityOptions;
import dev.weir.search.SearchIndexJob;
import dev.weir.stack.LocalService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each job against a secured service of the local stack, as production clusters are set up:
 * PostgreSQL with scram-sha-256 over TLS (the server's certificate verified), Kafka with SASL/SCRAM
 * over TLS, Elasticsearch with security on (HTTPS, basic auth). With the right credentials the job
 * runs; with a wrong password it fails at once, naming the reason, instead of hanging or retrying.
 */
@ExtendWith(LocalStackExtension.class)
class SecuredConnectionsITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(4).build());

  private static final Duration FAST = Duration.ofSeconds(30);
  private static boolean startedSecuredElasticsearch;

  @TempDir Path secrets;
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @AfterAll
  static void stopSecuredElasticsearch() {
    if (startedSecuredElasticsearch) {
      LocalStackExtension.stack().securedElasticsearch().stop();
    }
  }

  @Test
  void postgresOverVerifiedTlsWithScramAndAClearFailureWithAWrongPassword() throws Exception {
    WeirConfig plain = TestDatabases.fresh(LocalStackExtension.config(), "it_tls");
    WeirConfig config =
        plain
            .with(
                WeirOptions.POSTGRES_URL,
                plain.get(WeirOptions.POSTGRES_URL)
                    + "?sslmode=verify-full&sslrootcert="
                    + LocalStackExtension.stack().tls().caPem())
            .with(FeedOptions.TOPIC, "it.tls.activity." + run)
            .with(WeirOptions.DLQ_TOPIC, "it.tls.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    String url = config.get(WeirOptions.POSTGRES_URL);

    JobClient job = start(new ActivityFeedJob(), config);
    try {
      Kafka.produce(config.get(FeedOptions.TOPIC), List.of(activity("e1"), activity("e2")));
      assertThat(
              Await.until(
                  Duration.ofSeconds(60),
                  () -> TestDatabases.strings(config, url, "SELECT event_count FROM feed_entry"),
                  r -> r.equals(List.of("2"))))
          .containsExactly("2");
      // The job's own connections (application_name weir) are encrypted.
      assertThat(
              TestDatabases.strings(
                  config,
                  url,
                  "SELECT DISTINCT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)"
                      + " WHERE a.application_name = 'weir' AND a.datname = current_database()"))
          .containsExactly("t");
    } finally {
      job.cancel().get();
    }

    Throwable wrong =
        failsFast(
            new ActivityFeedJob(),
            config.with(WeirOptions.POSTGRES_PASSWORD_FILE, secret("not-the-password")));
    assertThat(wrong).hasStackTraceContaining("password authentication failed for user \"weir\"");
  }

  /**
   * The capture's connections (Flink CDC's snapshot pool and Debezium's replication connection) are
   * made from host, port and database, not from the URL: the URL's TLS parameters must still reach
   * them. Without them it still speaks TLS (the driver's default, "prefer") but never checks whom
   * it speaks to: only an untrusted server tells the two apart.
   */
  @Test
  void catalogCaptureOverVerifiedTlsAndAClearErrorForAParameterItCannotUse() throws Exception {
    WeirConfig plain = TestDatabases.withFreshCatalog(LocalStackExtension.config(), "it.tls", run);
    String catalogUrl =
        plain.get(DocumentOptions.CATALOG_URL)
            + "?sslmode=verify-full&sslrootcert="
            + LocalStackExtension.stack().tls().caPem();
    WeirConfig config = plain.with(DocumentOptions.CATALOG_URL, catalogUrl);
    TestDatabases.execute(
        config,
        catalogUrl,
        "INSERT INTO brand VALUES (1, 'Acme')",
        "INSERT INTO product (id, sku, name, description, brand_id) VALUES (1, 'S1', 'Tent', 'd', 1)");

    JobClient job = start(new CatalogCaptureJob(), config);
    List<String> connections;
    try {
      assertThat(readCommitted(config, CatalogCaptureJob.topic(config, "product"), 1))
          .singleElement()
          .asString()
          .contains("\"name\":\"Tent\"");
      // The replication connection opens once the snapshot is done.
      connections =
          Await.until(
              Duration.ofSeconds(60),
              () ->
                  TestDatabases.strings(
                      config,
                      catalogUrl,
                      "SELECT a.backend_type || ' ssl=' || s.ssl FROM pg_stat_activity a"
                          + " JOIN pg_stat_ssl s USING (pid)"
                          + " WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()"),
              c -> c.stream().anyMatch(row -> row.startsWith("walsender")));
    } finally {
      job.cancel().get();
      CatalogCaptureJob.dropSlot(config);
    }
    assertThat(connections)
        .as("the capture's connections to the catalog database")
        .anyMatch(c -> c.startsWith("walsender"))
        .allSatisfy(c -> assertThat(c).endsWith("ssl=true"));

    // A CA that did not sign the server's certificate: the capture refuses the server before any
    // job starts (reading the definition's tables from the catalog, with the capture's URL).
    WeirConfig untrusted =
        config.with(
            DocumentOptions.CATALOG_URL,
            catalogUrl.replace(
                LocalStackExtension.stack().tls().caPem().toString(), UntrustedCa.pem(secrets)));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    JobRunner.configure(env, untrusted);
    assertThat(catchThrowable(() -> new CatalogCaptureJob().build(env, untrusted)))
        .hasStackTraceContaining("unable to find valid certification path");

    WeirConfig withAParameterItCannotUse =
        config.with(DocumentOptions.CATALOG_URL, catalogUrl + "&connectTimeout=5");
    assertThatThrownBy(() -> start(new CatalogCaptureJob(), withAParameterItCannotUse))
        .hasStackTraceContaining(
            "has the parameter 'connectTimeout', which the capture cannot use");
  }

  @Test
  void kafkaOverSaslScramAndTlsAndAClearFailureWithAWrongPassword() throws Exception {
    String[] user = LocalStackExtension.stack().kafkaSecureCredentials();
    WeirConfig config =
        TestDatabases.fresh(LocalStackExtension.config(), "it_sasl")
            .with(
                WeirOptions.KAFKA_BOOTSTRAP_SERVERS,
                LocalStackExtension.stack().kafkaSecureAddress())
            .with(WeirOptions.KAFKA_SECURITY_PROTOCOL, "SASL_SSL")
            .with(WeirOptions.KAFKA_SASL_USERNAME, user[0])
            .with(WeirOptions.KAFKA_SASL_PASSWORD_FILE, secret(user[1]))
            .with(
                WeirOptions.KAFKA_SSL_CA_FILE, LocalStackExtension.stack().tls().caPem().toString())
            .with(IdentityOptions.TRACKING_TOPIC, "it.sasl.tracking." + run)
            .with(IdentityOptions.IDENTITY_TOPIC, "it.sasl.identity." + run)
            .with(IdentityOptions.ENRICHED_TOPIC, "it.sasl.enriched." + run)
            .with(WeirOptions.DLQ_TOPIC, "it.sasl.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");

    JobClient job = start(new IdentityJob(), config);
    try {
      // Producer and consumer connect as the job does, through the secured listener.
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(
              KafkaClients.clientProperties(config),
              new StringSerializer(),
              new StringSerializer())) {
        for (int i = 0; i < 5; i++) {
          producer.send(
              new ProducerRecord<>(
                  config.get(IdentityOptions.TRACKING_TOPIC),
                  "{\"event_id\":\"s"
                      + i
                      + "\",\"project_id\":\"p\",\"distinct_id\":\"d"
                      + i
                      + "\",\"name\":\"view\",\"time\":\""
                      + Instant.now()
                      + "\",\"properties\":{}}"));
        }
      }
      assertThat(readCommitted(config, config.get(IdentityOptions.ENRICHED_TOPIC), 5)).hasSize(5);
    } finally {
      job.cancel().get();
    }

    Throwable wrong =
        failsFast(
            new IdentityJob(),
            config.with(WeirOptions.KAFKA_SASL_PASSWORD_FILE, secret("not-the-password")));
    assertThat(wrong)
        .hasStackTraceContaining("invalid credentials with SASL mechanism SCRAM-SHA-512");
  }

  @Test
  void elasticsearchWithSecurityOnAndAClearFailureWithAWrongPassword() throws Exception {
    LocalService secured = LocalStackExtension.stack().securedElasticsearch();
    startedSecuredElasticsearch |= secured.start();
    String[] user = LocalStackExtension.stack().securedElasticsearchCredentials();
    String prefix = "it.secured.cdc." + run + ".";
    WeirConfig withoutTheCa =
        TestDatabases.withFreshCatalog(
                TestDatabases.fresh(LocalStackExtension.config(), "it_secured_es"),
                "it.secured",
                run)
            .with(WeirOptions.ELASTICSEARCH_URL, secured.address())
            .with(WeirOptions.ELASTICSEARCH_USERNAME, user[0])
            .with(WeirOptions.ELASTICSEARCH_PASSWORD_FILE, secret(user[1]))
            .with(DocumentOptions.CDC_TOPIC_PREFIX, prefix)
            .with(DocumentOptions.PRICING_TOPIC, "it.secured.pricing." + run)
            .with(DocumentOptions.ALIAS, "it-secured-" + run)
            .with(WeirOptions.DLQ_TOPIC, "it.secured.dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    WeirConfig config =
        withoutTheCa.with(
            WeirOptions.ELASTICSEARCH_CA_FILE,
            LocalStackExtension.stack().tls().caPem().toString());

    JobClient job = start(new SearchIndexJob(), config);
    try {
      Kafka.produce(
          prefix + "product",
          List.of(
              "{\"op\":\"c\",\"after\":{\"id\":1,\"sku\":\"S1\",\"name\":\"Secured Tent\","
                  + "\"description\":\"d\",\"attributes\":\"{}\",\"brand_id\":null,"
                  + "\"category_id\":null,\"updated_at\":null},\"source\":{\"lsn\":10}}"));
      SearchCluster es = ElasticsearchConnection.cluster(config);
      assertThat(
              Await.until(
                  Duration.ofSeconds(60),
                  () -> {
                    var doc = SearchDocuments.source(es, config.get(DocumentOptions.ALIAS), "1");
                    return doc == null ? "" : doc.path("name").asText();
                  },
                  "Secured Tent"::equals))
          .isEqualTo("Secured Tent");
    } finally {
      job.cancel().get();
    }

    Throwable wrong =
        failsFast(
            new SearchIndexJob(),
            config.with(WeirOptions.ELASTICSEARCH_PASSWORD_FILE, secret("not-the-password")));
    assertThat(wrong)
        .hasStackTraceContaining(
            "refused the login of user 'weir' (401): check elasticsearch.username and its"
                + " password");
    // Without the deployment's CA the JVM's trust store does not know the node's certificate.
    assertThat(failsFast(new SearchIndexJob(), withoutTheCa))
        .hasStackTraceContaining("unable to find valid certification path");
  }

  // --- helpers

  private static JobClient start(WeirJob job, WeirConfig config) throws Exception {
    return JobRunner.start(job, StreamExecutionEnvironment.getExecutionEnvironment(), config);
  }

  /** The job does not start, within {@link #FAST}: returns why. */
  private static Throwable failsFast(WeirJob job, WeirConfig config) {
    long start = System.nanoTime();
    Throwable failure = catchThrowable(() -> start(job, config).cancel().get());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(failure).as("the job did not start").isNotNull();
    assertThat(took).as("failed fast").isLessThan(FAST);
    System.out.printf(
        "%s refused in %d ms: %s%n", job.name(), took.toMillis(), rootMessage(failure));
    return failure;
  }

  private static String rootMessage(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.toString();
  }

  private String secret(String value) throws Exception {
    Path file = secrets.resolve(UUID.randomUUID() + ".secret");
    Files.writeString(file, value);
    return file.toString();
  }

  private static String activity(String id) {
    return "{\"event_id\":\""
        + id
        + "\",\"workspace_id\":\"w\",\"actor_id\":\"a\",\"element_type\":\"repository\","
        + "\"element_id\":\"r\",\"action\":\"push\",\"occurred_at\":\""
        + Instant.now().minusSeconds(60)
        + "\"}";
  }

  private static List<String> readCommitted(WeirConfig config, String topic, int count) {
    Properties props = KafkaClients.clientProperties(config);
    props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID());
    props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (values.size() < count && System.nanoTime() < deadline) {
        consumer
            .poll(Duration.ofMillis(200))
            .forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
      }
    }
    return values;
  }
}
