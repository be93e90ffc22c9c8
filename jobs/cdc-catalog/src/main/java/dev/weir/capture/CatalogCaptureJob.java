package dev.weir.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.WeirJob;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.KafkaSinks;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.JobClassLoader;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.documents.ChangeTopicNames;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.schema.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.cdc.connectors.base.relational.connection.JdbcConnectionPools;
import org.apache.flink.cdc.connectors.postgres.source.PostgresConnectionPoolFactory;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder.PostgresIncrementalSource;
import org.apache.flink.cdc.debezium.JsonDebeziumDeserializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * cdc-catalog: the tables of the document definition (see {@link Definitions#specs}) → Debezium
 * (Flink CDC's incremental Postgres source: a snapshot, then pgoutput from its own slot and a
 * publication of these tables only) → the standard Debezium JSON envelope on {@code
 * cdc.catalog.<table>}, keyed by the row's primary key, exactly once. A deployment that already
 * runs Debezium Server or Kafka Connect can skip this job: search-index reads only the topics.
 */
public final class CatalogCaptureJob implements WeirJob {

  public static final String NAME = "cdc-catalog";

  @Override
  public String name() {
    return NAME;
  }

  /**
   * A source change is readable (search-index reads {@code read_committed}) only once the
   * checkpoint after it commits its transaction, so this interval bounds how long a change waits to
   * be indexed (the jobs' default 10 s would dominate a change's latency). Each checkpoint of this
   * job holds little (the source's offsets) and commits one Kafka transaction.
   */
  @Override
  public Duration defaultCheckpointInterval() {
    return Duration.ofSeconds(2);
  }

  @Override
  public List<String> topics(WeirConfig config) {
    return Definitions.topics(config, Definitions.plans(config)).stream()
        .filter(t -> t.startsWith(config.get(DocumentOptions.CDC_TOPIC_PREFIX)))
        .toList();
  }

  /**
   * The tables captured, by database: {@code schema.table} → its key columns (those the definition
   * declares, link tables included).
   */
  static Map<String, Map<String, List<String>>> capturedTables(WeirConfig config) {
    return Definitions.tablesByDatabase(Definitions.plans(config));
  }

  /** The topic of a table of the catalog URL's database in {@code public}. */
  public static String topic(WeirConfig config, String table) {
    return config.get(DocumentOptions.CDC_TOPIC_PREFIX) + table;
  }

  /**
   * Creates each database's publication of its captured tables, or sets its tables to exactly those
   * (a definition that names a table more or less).
   */
  @Override
  public void prepare(WeirConfig config) {
    Map<String, Map<String, List<String>>> databases = capturedTables(config);
    for (Map.Entry<String, Map<String, List<String>>> database : databases.entrySet()) {
      String publication =
          CaptureOptions.publication(config, database.getKey(), databases.size() > 1);
      String url = Definitions.databaseUrl(config, database.getKey());
      String tables =
          String.join(
              ", ", database.getValue().keySet().stream().map(CatalogCaptureJob::quoted).toList());
      try (Connection c = PostgresConnectionProvider.open(config, url)) {
        var exists = c.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?");
        exists.setString(1, publication);
        if (!exists.executeQuery().next()) {
          c.createStatement().execute("CREATE PUBLICATION " + publication + " FOR TABLE " + tables);
        } else {
          c.createStatement().execute("ALTER PUBLICATION " + publication + " SET TABLE " + tables);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cdc-catalog: cannot create the publication "
                + publication
                + " in "
                + url
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  /**
   * The change topics are compacted: after the snapshot, the topics and the indexer's state are the
   * whole truth, and an indexer started without its state must find every row in them, not only the
   * changes of the retention time (7 days by default). Each row's latest change stays (keyed by the
   * row's key, see {@link #record}); a deleted row's last event is its deletion.
   */
  @Override
  public void configureTopics(WeirConfig config) {
    KafkaTopics.compact(config, topics(config));
  }

  @Override
  public void build(StreamExecutionEnvironment env, WeirConfig config) {
    Properties debezium = new Properties();
    // The publication: created by prepare() for the captured tables only (Debezium 1.9's own
    // "filtered" creation
    // finds no tables when run from Flink CDC's snapshot readers).
    debezium.setProperty("publication.autocreate.mode", "disabled");
    // Exact decimals and ISO timestamps, as Debezium Server and Kafka Connect users usually set.
    debezium.setProperty("decimal.handling.mode", "string");
    // An interval as its ISO-8601 text: the default, microseconds, folds months and days into
    // hours (-1 day 02:00 became -22 hours) and overflows past 292,000 years.
    debezium.setProperty("interval.handling.mode", "string");
    // Debezium skips truncates by default ("t"): a truncated table would leave every document that
    // holds its rows in place without a word. Captured, each reaches the indexer (which
    // dead-letters it, naming the table) and the weirTruncates metric.
    debezium.setProperty("skipped.operations", "none");
    // Debezium 1.9's PostgreSQL connector also has its own switch, which skips them by default.
    debezium.setProperty("truncate.handling.mode", "include");
    // One source per database (a slot reads one database), their events on one exactly-once sink.
    Map<String, Map<String, List<String>>> databases = capturedTables(config);
    String urlDatabase = DocumentOptions.database(config.get(DocumentOptions.CATALOG_URL));
    // Slots and LSNs are the server's: one position stamps the snapshot reads of every database.
    long snapshotLsn = currentWalLsn(config);
    DataStream<String> changes = null;
    for (Map.Entry<String, Map<String, List<String>>> database : databases.entrySet()) {
      boolean several = databases.size() > 1;
      Properties properties = new Properties();
      properties.putAll(debezium);
      properties.setProperty(
          "publication.name", CaptureOptions.publication(config, database.getKey(), several));
      String slot = CaptureOptions.slot(config, database.getKey(), several);
      PostgresIncrementalSource<String> source =
          CatalogSource.create(
              config,
              database.getKey(),
              slot,
              List.copyOf(database.getValue().keySet()),
              properties,
              new JsonDebeziumDeserializationSchema());
      // The URL's database keeps the uids a capture of one database always had (and its state).
      String suffix = database.getKey().equals(urlDatabase) ? "" : "-" + database.getKey();
      DataStream<String> read =
          env.fromSource(source, WatermarkStrategy.noWatermarks(), "catalog " + database.getKey())
              .uid(NAME + "-source" + suffix)
              .setParallelism(1) // one replication slot: one reader
              .map(new SlotMonitor(config, config.get(DocumentOptions.CATALOG_URL), slot))
              .uid(NAME + "-slot" + suffix)
              .name("slot " + slot)
              .setParallelism(1);
      changes = changes == null ? read : changes.union(read);
    }
    changes
        .sinkTo(
            KafkaSinks.exactlyOnce(
                config,
                new TableTopics(ChangeTopicNames.of(config), databases, snapshotLsn),
                DeploymentNames.transactionalIdPrefix(config, NAME, "")))
        .uid(NAME + "-topics")
        .name("cdc.catalog.*");
  }

  /** Each change event to its table's topic. */
  static final class TableTopics implements KafkaRecordSerializationSchema<String> {
    private static final long serialVersionUID = 1L;
    private final ChangeTopicNames topics;
    private final Map<String, Map<String, List<String>>> keyColumns;
    private final long snapshotLsn;

    TableTopics(
        ChangeTopicNames topics,
        Map<String, Map<String, List<String>>> keyColumns,
        long snapshotLsn) {
      this.topics = topics;
      this.snapshotLsn = snapshotLsn;
      this.keyColumns = new LinkedHashMap<>(keyColumns);
    }

    private transient Counter truncates;

    @Override
    public void open(
        SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
      truncates = context.getMetricGroup().counter(WeirMetrics.TRUNCATES);
      // Flink CDC's reader keeps its connection pools in a static singleton and never closes
      // them (apache/flink-cdc#4539): their housekeeper threads would hold this job's classes in
      // the TaskManager forever. Closed when Flink drops the job's class loader.
      context
          .getUserCodeClassLoader()
          .registerReleaseHookIfAbsent("weir: close Flink CDC's pools", TableTopics::closePools);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
        String json, KafkaSinkContext context, Long timestamp) {
      ProducerRecord<byte[], byte[]> record =
          record(topics, keyColumns, json, snapshotLsn, System.currentTimeMillis());
      if (truncates != null && isTruncate(record)) {
        truncates.inc();
      }
      return record;
    }

    /** Only a truncate's key is a JSON string (see {@link #record}). */
    private static boolean isTruncate(ProducerRecord<byte[], byte[]> record) {
      return record.key()[0] == '"';
    }

    private static void closePools() {
      if (!JobClassLoader.owns(JdbcConnectionPools.class)) {
        return; // shared with other jobs of this process
      }
      try {
        JdbcConnectionPools.getInstance(new PostgresConnectionPoolFactory()).clear();
      } catch (IOException e) {
        // The job is gone; a pool that fails to close has nothing left to lose.
      }
    }
  }

  /**
   * A change event on its table's topic ({@link ChangeTopicNames}; {@code keyColumns} by database,
   * then {@code schema.table}), keyed by the row's key columns as Debezium keys it ({@code {"id":
   * 42}}), so that the changes of one row stay in order on one partition. A truncate has no row:
   * Debezium gives it no key, which a compacted topic refuses; it is keyed {@code "TRUNCATE
   * <schema>.<table>"}, a JSON string that no row's key (an object) can equal.
   *
   * <p>A snapshot read ({@code op = r}) comes from Flink CDC without a log position ({@code
   * source.lsn} 0): it gets {@code snapshotLsn}, the server's WAL position before the capture
   * started reading. That is after every change an earlier capture of the same server saw, so a new
   * snapshot's rows win over the versions they replace (a copy or index kept from before a lost
   * slot), and before every change the stream emits for a row after its snapshot chunk, which win
   * over the read. It also comes without a time ({@code source.ts_ms} 0): it gets {@code readAtMs},
   * as Debezium's own snapshot stamps its reads, so that search-index, which holds what it
   * assembled until it has read what was captured before, writes a document once its children's
   * rows, read first ({@link dev.weir.documents.definition.SnapshotOrder}), are in.
   */
  static ProducerRecord<byte[], byte[]> record(
      ChangeTopicNames topics,
      Map<String, Map<String, List<String>>> keyColumns,
      String json,
      long snapshotLsn,
      long readAtMs) {
    try {
      JsonNode event = Json.mapper().readTree(json);
      String op = event.path("op").asText();
      if (op.equals("r") && event.path("source").path("lsn").asLong(0) <= 0) {
        ObjectNode source = (ObjectNode) event.path("source");
        source.put("lsn", snapshotLsn);
        if (source.path("ts_ms").asLong(0) <= 0) {
          source.put("ts_ms", readAtMs);
        }
        json = Json.mapper().writeValueAsString(event);
      }
      JsonNode row = op.equals("d") ? event.path("before") : event.path("after");
      String schema = event.path("source").path("schema").asText("public");
      String table = event.path("source").path("table").asText();
      String database = event.path("source").path("db").asText(topics.urlDatabase());
      JsonNode key;
      if (op.equals("t")) {
        key = Json.mapper().getNodeFactory().textNode("TRUNCATE " + schema + "." + table);
      } else {
        ObjectNode columns = Json.mapper().createObjectNode();
        List<String> keys =
            keyColumns
                .getOrDefault(database, Map.of())
                .getOrDefault(schema + "." + table, List.of("id"));
        for (String column : keys) {
          columns.set(column, row.path(column));
        }
        key = columns;
      }
      return new ProducerRecord<>(
          topics.topic(database, schema, table),
          Json.mapper().writeValueAsBytes(key),
          json.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("Debezium produced invalid JSON: " + json, e);
    }
  }

  /** The catalog server's current WAL position, as the LSN number Debezium writes. */
  static long currentWalLsn(WeirConfig config) {
    try (Connection c =
            PostgresConnectionProvider.open(config, config.get(DocumentOptions.CATALOG_URL));
        var query =
            c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
        var rs = query.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cdc-catalog: cannot read the WAL position of "
              + config.get(DocumentOptions.CATALOG_URL)
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static String quoted(String qualified) {
    int dot = qualified.indexOf('.');
    return '"' + qualified.substring(0, dot) + "\".\"" + qualified.substring(dot + 1) + '"';
  }

  /**
   * Drops the job's replication slots, one per database (cancelling the job does not: an abandoned
   * slot keeps WAL forever). A slot stays active about a second after the job stops, so this
   * retries.
   */
  public static void dropSlot(WeirConfig config) throws Exception {
    Set<String> databases = new LinkedHashSet<>();
    Definitions.specs(config).forEach(spec -> databases.add(spec.database()));
    for (String database : databases) {
      dropSlot(config, CaptureOptions.slot(config, database, databases.size() > 1));
    }
  }

  private static void dropSlot(WeirConfig config, String slot) throws Exception {
    // Slots are the server's: any database of it sees them all.
    String url = config.get(DocumentOptions.CATALOG_URL);
    SQLException last = null;
    for (int attempt = 0; attempt < 20; attempt++) {
      try (Connection c = PostgresConnectionProvider.open(config, url)) {
        ReplicationSlots.drop(c, slot);
        return;
      } catch (SQLException e) {
        last = e;
        Thread.sleep(500);
      }
    }
    throw last;
  }
}
