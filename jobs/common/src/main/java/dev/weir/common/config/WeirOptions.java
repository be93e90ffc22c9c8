package dev.weir.common.config;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Every setting shared by weir's jobs, in one place. Set them as job arguments ({@code
 * --kafka.bootstrap-servers host:9092}) or in the Flink configuration; where an environment
 * variable is named, it is used when the option is not set (the names {@code .weir/stack.env}
 * exports). Secrets are never options: they come from the environment or from files.
 */
public final class WeirOptions {

  public static final ConfigOption<String> KAFKA_BOOTSTRAP_SERVERS =
      ConfigOptions.key("kafka.bootstrap-servers")
          .stringType()
          .defaultValue("127.0.0.1:19092")
          .withDescription("Kafka bootstrap servers. Env: KAFKA_BOOTSTRAP_SERVERS.");

  public static final ConfigOption<String> KAFKA_SECURITY_PROTOCOL =
      ConfigOptions.key("kafka.security.protocol")
          .stringType()
          .defaultValue("PLAINTEXT")
          .withDescription(
              "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL, for every Kafka client of the job."
                  + " Env: KAFKA_SECURITY_PROTOCOL.");

  public static final ConfigOption<String> KAFKA_SASL_MECHANISM =
      ConfigOptions.key("kafka.sasl.mechanism")
          .stringType()
          .defaultValue("SCRAM-SHA-512")
          .withDescription("SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN, with a SASL protocol.");

  public static final ConfigOption<String> KAFKA_SASL_USERNAME =
      ConfigOptions.key("kafka.sasl.username")
          .stringType()
          .noDefaultValue()
          .withDescription("The SASL user. Env: KAFKA_USERNAME.");

  public static final ConfigOption<String> KAFKA_SASL_PASSWORD_FILE =
      ConfigOptions.key("kafka.sasl.password-file")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "File holding the SASL user's password (e.g. a mounted Secret). Otherwise env"
                  + " KAFKA_PASSWORD. Read by each process when it logs in, never sent with the"
                  + " job.");

  public static final ConfigOption<String> KAFKA_SSL_CA_FILE =
      ConfigOptions.key("kafka.ssl.ca-file")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "PEM file of the CA(s) that signed the brokers' certificates, with SSL or SASL_SSL"
                  + " (default: the JVM's trust store). Env: KAFKA_SSL_CA_FILE.");

  public static final ConfigOption<Duration> KAFKA_PRODUCER_MAX_BLOCK =
      ConfigOptions.key("kafka.producer.max-block")
          .durationType()
          .defaultValue(Duration.ofSeconds(60))
          .withDescription(
              "Longest a Kafka write waits for its topic's metadata or for buffer space, and an"
                  + " exactly-once sink for its transaction to start, commit or abort (the"
                  + " producer's max.block.ms), e.g. for a topic deleted under the job; then the"
                  + " write fails and the job restarts from its last checkpoint.");

  public static final ConfigOption<Duration> KAFKA_PRODUCER_LINGER =
      ConfigOptions.key("kafka.producer.linger")
          .durationType()
          .defaultValue(Duration.ofMillis(5))
          .withDescription(
              "How long a Kafka sink waits for more records before it sends a batch (the"
                  + " producer's linger.ms; Kafka 4's default, 3.x sends at once): fewer, fuller"
                  + " requests, half the broker's CPU per event in the identity benchmark. An"
                  + " exactly-once write is visible only at the next checkpoint anyway.");

  public static final ConfigOption<MemorySize> KAFKA_PRODUCER_BATCH_SIZE =
      ConfigOptions.key("kafka.producer.batch-size")
          .memoryType()
          .defaultValue(MemorySize.parse("64kb"))
          .withDescription(
              "Largest batch of records a Kafka sink sends to one partition in one request (the"
                  + " producer's batch.size; Kafka's default is 16 KiB, about 23 tracking events).");

  public static final ConfigOption<String> GENERATION =
      ConfigOptions.key("search.generation")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Set by `weir documents apply` on the search-index job it starts beside the running"
                  + " one: this generation's copy tables are <copy_table>_<generation> and it"
                  + " writes through the alias <index>-<generation> (its index"
                  + " <index>-<generation>-v1), so that it builds beside the documents searches"
                  + " read; apply then moves each document's alias onto it. Its consumer group"
                  + " and transactional ids end in -<generation>. Lower-case letters and"
                  + " digits.");

  public static final ConfigOption<String> DEPLOYMENT_ID =
      ConfigOptions.key("deployment.id")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Tells apart two deployments of one job that share a Kafka cluster (e.g. staging"
                  + " and production, or one per tenant): it becomes part of the job's Kafka"
                  + " transactional-id prefixes and consumer group, so that neither fences the"
                  + " other's exactly-once producers. Letters, digits, '.', '_' and '-', at most"
                  + " 64. Unset: the only deployment of the job on its cluster, named as before"
                  + " (weir-<job>), so that a running job keeps its transactions across an"
                  + " upgrade. Changing it on a running job: see docs/operations.md.");

  public static final ConfigOption<String> DLQ_TOPIC =
      ConfigOptions.key("dlq.topic")
          .stringType()
          .defaultValue("weir.dlq")
          .withDescription("Where records that cannot be processed go, with the reason.");

  public static final ConfigOption<Integer> RECORD_MAX_BYTES =
      ConfigOptions.key("record.max-bytes")
          .intType()
          .defaultValue(1 << 20)
          .withDescription("Input records larger than this go to the DLQ unread.");

  public static final ConfigOption<Duration> EVENT_TIME_MAX_AHEAD =
      ConfigOptions.key("event-time.max-ahead")
          .durationType()
          .defaultValue(Duration.ofHours(1))
          .withDescription(
              "Events of a job on event time whose time is further ahead of the clock go to the"
                  + " DLQ: one of them would move the watermark past every real event.");

  public static final ConfigOption<String> POSTGRES_URL =
      ConfigOptions.key("postgres.url")
          .stringType()
          .defaultValue("jdbc:postgresql://127.0.0.1:15432/weir")
          .withDescription("JDBC URL of weir's database. Env: POSTGRES_JDBC_URL.");

  public static final ConfigOption<String> POSTGRES_USER =
      ConfigOptions.key("postgres.user")
          .stringType()
          .defaultValue("weir")
          .withDescription("Database user. Env: PGUSER.");

  public static final ConfigOption<String> POSTGRES_PASSWORD_FILE =
      ConfigOptions.key("postgres.password-file")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "File holding the database password (e.g. a mounted Secret). Otherwise env"
                  + " PGPASSWORD, otherwise .weir/postgres/password of the local stack.");

  public static final ConfigOption<Duration> POSTGRES_STATEMENT_TIMEOUT =
      ConfigOptions.key("postgres.statement-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(60))
          .withDescription(
              "Longest a statement on any of the jobs' PostgreSQL connections, migrations"
                  + " included, may run (statement_timeout); PostgreSQL then cancels it, and a"
                  + " batch write retries (postgres.write-retry-for). Whole milliseconds; 0: no"
                  + " limit.");

  public static final ConfigOption<Duration> POSTGRES_LOCK_TIMEOUT =
      ConfigOptions.key("postgres.lock-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "Longest a statement waits for a lock another session holds (lock_timeout), e.g. a"
                  + " row someone keeps locked in an open transaction; then the statement fails"
                  + " and a batch write retries (postgres.write-retry-for). Shorter than"
                  + " postgres.statement-timeout, whole milliseconds; 0: no limit.");

  public static final ConfigOption<Duration> POSTGRES_SOCKET_TIMEOUT =
      ConfigOptions.key("postgres.socket-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(90))
          .withDescription(
              "Longest the driver waits for PostgreSQL to answer before it gives the connection"
                  + " up (a server or network that hangs); the task then fails and restarts."
                  + " Longer than postgres.statement-timeout, so that it never cuts a statement"
                  + " PostgreSQL would still cancel itself. Whole seconds; 0: no limit (only with"
                  + " no statement timeout).");

  public static final ConfigOption<Duration> POSTGRES_CONNECT_TIMEOUT =
      ConfigOptions.key("postgres.connect-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription("Longest opening a PostgreSQL connection may take. Whole seconds.");

  public static final ConfigOption<Duration> POSTGRES_WRITE_RETRY_FOR =
      ConfigOptions.key("postgres.write-retry-for")
          .durationType()
          .defaultValue(Duration.ofMinutes(2))
          .withDescription(
              "How long a batch write to PostgreSQL keeps retrying after a lock or statement"
                  + " timeout (back-off from 1 s up to 15 s, counted in weirPostgresTimeouts)"
                  + " before its task fails and the job restarts (restart.*). A lock held a few"
                  + " minutes costs no restart; the checkpoint waiting for the write still"
                  + " completes within Flink's checkpoint timeout (10 min). 0: fail at the first"
                  + " timeout.");

  public static final ConfigOption<String> ARCHIVE_POSTGRES_URL =
      ConfigOptions.key("archive.postgres.url")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "JDBC URL of the activity feed's cold store (feed_archive); the same user and"
                  + " password. Defaults to postgres.url: a second database is a configuration change.");

  public static final ConfigOption<String> ELASTICSEARCH_URL =
      ConfigOptions.key("elasticsearch.url")
          .stringType()
          .defaultValue("http://127.0.0.1:19200")
          .withDescription("Elasticsearch URL. Env: ELASTICSEARCH_URL.");

  public static final ConfigOption<String> ELASTICSEARCH_USERNAME =
      ConfigOptions.key("elasticsearch.username")
          .stringType()
          .noDefaultValue()
          .withDescription("Elasticsearch user for basic auth. Env: ELASTICSEARCH_USERNAME.");

  public static final ConfigOption<String> ELASTICSEARCH_PASSWORD_FILE =
      ConfigOptions.key("elasticsearch.password-file")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "File holding the Elasticsearch password. Otherwise env ELASTICSEARCH_PASSWORD.");

  public static final ConfigOption<String> ELASTICSEARCH_CA_FILE =
      ConfigOptions.key("elasticsearch.ca-file")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "PEM file of the CA that signed Elasticsearch's HTTPS certificate (default: the JVM's"
                  + " trust store). Env: ELASTICSEARCH_CA_FILE.");

  public static final ConfigOption<String> ELASTICSEARCH_ENGINE =
      ConfigOptions.key("elasticsearch.engine")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The engine at elasticsearch.url: elasticsearch8, elasticsearch9 or opensearch2."
                  + " Default: asked of the cluster at start (its X-elastic-product header and"
                  + " _nodes/_local, else GET /); name it where neither answers (a proxy that hides"
                  + " them).");

  public static final ConfigOption<Duration> ELASTICSEARCH_SOCKET_TIMEOUT =
      ConfigOptions.key("elasticsearch.socket-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(60))
          .withDescription(
              "How long a request to the search cluster waits for its answer before it is given"
                  + " up and retried: a node that hangs (a long pause, a frozen process) holds a"
                  + " bulk this long.");

  public static final ConfigOption<Duration> CHECKPOINT_INTERVAL =
      ConfigOptions.key("checkpoint.interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "How often state is checkpointed; exactly-once Kafka output commits then."
                  + " cdc-catalog's is 2 s when not given: a source change is readable only"
                  + " once its transaction commits.");

  public static final ConfigOption<Integer> PARALLELISM =
      ConfigOptions.key("parallelism")
          .intType()
          .defaultValue(1)
          .withDescription(
              "Default operator parallelism. Locally 1 when not given; on a cluster, when not"
                  + " given, the deployment's (a FlinkDeployment's job.parallelism).");

  public static final ConfigOption<Integer> RESTART_MAX_ATTEMPTS =
      ConfigOptions.key("restart.max-attempts")
          .intType()
          .defaultValue(30)
          .withDescription(
              "Restarts in a row (failures less than restart.reset-after apart) before the job"
                  + " fails for good with its cause. 30, with back-off from 1 s up to 30 s, ride"
                  + " out about 8 minutes of a failure that persists.");

  public static final ConfigOption<Duration> RESTART_RESET_AFTER =
      ConfigOptions.key("restart.reset-after")
          .durationType()
          .defaultValue(Duration.ofMinutes(10))
          .withDescription(
              "A job that ran this long without a failure counts its restarts (and back-off)"
                  + " afresh.");

  private WeirOptions() {}
}
