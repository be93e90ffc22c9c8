package dev.weir.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.documents.ChangeTopicNames;
import dev.weir.documents.Definitions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.documents.definition.NodeSpec;
import dev.weir.documents.definition.PostgresCatalog;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.ValueType;
import dev.weir.schema.Json;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Reads one captured table again while streaming goes on, as change events on its change topic, and
 * then tells search-index that every row of the table the read did not return is gone.
 *
 * <ol>
 *   <li>Takes the server's WAL position {@code P} and waits for every transaction then in progress
 *       to end, so that every change logged before {@code P} is in what the read sees.
 *   <li>Reads the table in one repeatable-read transaction and writes each row to the topic as a
 *       read ({@code op r}, {@code source.snapshot = incremental}, as Debezium marks the reads of
 *       an incremental snapshot) stamped {@code P - 1}: a change logged after {@code P} is newer
 *       and wins over it, whichever search-index reads first; a change logged before it is older.
 *   <li>Waits until search-index's consumer group has committed offsets past those reads (it
 *       commits on each checkpoint: the reads are in its state).
 *   <li>Writes the table's reset: a truncate event at {@code P - 1}. search-index deletes the rows
 *       of the table stamped below it (rows deleted while no capture ran, or whose changes were
 *       lost) and drops any such change that arrives later.
 * </ol>
 *
 * Nothing else is read again; run it again if it stopped: every step is safe to repeat.
 */
final class TableResnapshot {

  /** Rows read per round trip to the server. */
  private static final int FETCH_SIZE = 1000;

  private final WeirConfig config;
  private final PrintWriter out;

  TableResnapshot(WeirConfig config, PrintWriter out) {
    this.config = config;
    this.out = out;
  }

  /** A captured table of a document's database. */
  record Table(String database, String schema, String table) {
    String qualifiedName() {
      return schema + "." + table;
    }
  }

  /**
   * The captured tables {@code name} ({@code table} or {@code schema.table}) stands for among the
   * documents' nodes.
   *
   * @throws IllegalArgumentException when no document reads it
   */
  static List<Table> tables(List<DocumentSpec> documents, String name) {
    String schema = name.contains(".") ? name.substring(0, name.indexOf('.')) : "public";
    String table = name.contains(".") ? name.substring(name.indexOf('.') + 1) : name;
    List<Table> captured = captured(documents);
    List<Table> found =
        captured.stream()
            .filter(t -> t.schema().equals(schema) && t.table().equals(table))
            .toList();
    if (found.isEmpty()) {
      throw new IllegalArgumentException(
          "no document of the file reads a table "
              + name
              + " (it reads "
              + captured.stream().map(Table::qualifiedName).distinct().toList()
              + ")");
    }
    return found;
  }

  /** The documents whose root reads {@code table}. */
  static List<DocumentPlan> rootOf(List<DocumentPlan> plans, Table table) {
    return plans.stream()
        .filter(
            p ->
                p.database().equals(table.database())
                    && p.source(p.root()).name().equals(table.qualifiedName()))
        .toList();
  }

  /** Every captured table the documents read, once (a topic node's is fed by another service). */
  static List<Table> captured(List<DocumentSpec> documents) {
    Set<Table> tables = new LinkedHashSet<>();
    for (DocumentSpec document : documents) {
      List<NodeSpec> nodes = new ArrayList<>(List.of(document.root()));
      while (!nodes.isEmpty()) {
        NodeSpec node = nodes.remove(nodes.size() - 1);
        if (node.topic() == null) {
          String schema = node.schema() == null ? "public" : node.schema();
          tables.add(new Table(document.database(), schema, node.table()));
        }
        nodes.addAll(node.children());
      }
    }
    return List.copyOf(tables);
  }

  /**
   * Reads {@code table} again and resets it once search-index has read the rows; where it is the
   * root of documents ({@code roots}), sweeps those whose root row the read did not return ({@link
   * RootSweep}).
   */
  void resnapshot(Table table, List<DocumentPlan> roots, Duration timeout) throws Exception {
    String topic =
        ChangeTopicNames.of(config).topic(table.database(), table.schema(), table.table());
    try (Connection c =
            PostgresConnectionProvider.open(
                config, Definitions.databaseUrl(config, table.database()));
        KafkaProducer<byte[], byte[]> producer = producer();
        Admin admin = KafkaClients.admin(config)) {
      TableInfo info =
          new PostgresCatalog(c)
              .table(table.schema(), table.table())
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          table.qualifiedName() + " does not exist in " + table.database()));
      long position = quiescedWalPosition(c, timeout);
      long stamp = position - 1;
      out.printf(
          "%s: reading every row as of WAL position %s (change topic %s)%n",
          table.qualifiedName(), lsnText(position), topic);
      out.flush();
      Map<TopicPartition, Long> written = new ConcurrentHashMap<>();
      List<RootSweep> sweeps = new ArrayList<>();
      for (DocumentPlan plan : roots) {
        sweeps.add(new RootSweep(config, plan, info.columns()));
      }
      long rows = read(c, info, table, topic, stamp, producer, written, sweeps);
      out.printf("%s: %,d rows written to %s%n", table.qualifiedName(), rows, topic);
      out.flush();
      String group = DeploymentNames.groupId(config, "search-index");
      awaitRead(admin, group, written, timeout);
      producer
          .send(
              new ProducerRecord<>(
                  topic,
                  Json.mapper().writeValueAsBytes("TRUNCATE " + table.qualifiedName()),
                  event("t", null, table, stamp).getBytes(StandardCharsets.UTF_8)))
          .get();
      out.printf(
          "%s: reset written: its rows that were not read again leave the documents%n",
          table.qualifiedName());
      out.flush();
      for (RootSweep sweep : sweeps) {
        sweep.sweep(position, out);
      }
    }
  }

  /**
   * The server's WAL position once every transaction in progress when it was taken has ended: every
   * change logged before it is then committed or rolled back.
   */
  static long quiescedWalPosition(Connection c, Duration timeout) throws SQLException {
    long position;
    List<Long> inProgress = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,"
                    + " array(SELECT pg_snapshot_xip(pg_current_snapshot()))::text")) {
      r.next();
      position = r.getLong(1);
      String xip = r.getString(2);
      for (String xid : xip.substring(1, xip.length() - 1).split(",")) {
        if (!xid.isBlank()) {
          inProgress.add(Long.parseLong(xid.trim()));
        }
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (long xid : inProgress) {
      try (PreparedStatement p =
          c.prepareStatement("SELECT pg_xact_status(?::text::xid8) = 'in progress'")) {
        p.setString(1, Long.toString(xid));
        while (true) {
          try (ResultSet r = p.executeQuery()) {
            r.next();
            if (!r.getBoolean(1)) {
              break;
            }
          }
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "transaction " + xid + " is still in progress after " + timeout + ": nothing read");
          }
          sleep(100);
        }
      }
    }
    return position;
  }

  /**
   * Every row of the table, in one repeatable-read transaction, as reads on its topic. Values are
   * PostgreSQL's {@code to_jsonb}, which search-index reads as it reads Debezium's text forms;
   * numeric and json columns as their text, as the capture sends them (a JSON number would not keep
   * every digit of a numeric, and a JSON string in a jsonb column is not its text).
   */
  private long read(
      Connection c,
      TableInfo info,
      Table table,
      String topic,
      long stamp,
      KafkaProducer<byte[], byte[]> producer,
      Map<TopicPartition, Long> written,
      List<RootSweep> sweeps)
      throws Exception {
    AtomicReference<Exception> failed = new AtomicReference<>();
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    long rows = 0;
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL TimeZone = 'UTC'");
      s.execute("SET LOCAL IntervalStyle = 'iso_8601'");
      try (PreparedStatement select = c.prepareStatement(select(info))) {
        select.setFetchSize(FETCH_SIZE);
        try (ResultSet r = select.executeQuery()) {
          while (r.next()) {
            ObjectNode after = (ObjectNode) Json.mapper().readTree(r.getString(1));
            for (RootSweep sweep : sweeps) {
              sweep.read(after);
            }
            ObjectNode key = Json.mapper().createObjectNode();
            for (String column : info.primaryKey()) {
              key.set(column, after.path(column));
            }
            producer.send(
                new ProducerRecord<>(
                    topic,
                    Json.mapper().writeValueAsBytes(key),
                    event("r", after, table, stamp).getBytes(StandardCharsets.UTF_8)),
                (sent, e) -> {
                  if (e != null) {
                    failed.compareAndSet(null, e);
                  } else {
                    written.merge(
                        new TopicPartition(sent.topic(), sent.partition()),
                        sent.offset(),
                        Math::max);
                  }
                });
            if (++rows % 100_000 == 0) {
              out.printf("%s: %,d rows read%n", table.qualifiedName(), rows);
              out.flush();
            }
          }
        }
      }
      c.commit();
    } finally {
      c.setAutoCommit(autoCommit);
    }
    producer.flush();
    if (failed.get() != null) {
      throw new IllegalStateException(
          "could not write the rows to " + topic + ": " + failed.get().getMessage(), failed.get());
    }
    return rows;
  }

  /** The read's SELECT: {@code to_jsonb} of the row, numeric and json columns as text. */
  static String select(TableInfo info) {
    List<String> asText = new ArrayList<>();
    for (Map.Entry<String, String> column : info.columns().entrySet()) {
      String type = column.getValue();
      if (!ValueType.isArray(type)
          && (ValueType.of(type) == ValueType.DECIMAL || ValueType.of(type) == ValueType.JSON)) {
        asText.add(
            "'" + column.getKey().replace("'", "''") + "', t." + quote(column.getKey()) + "::text");
      }
    }
    String row = "to_jsonb(t)";
    // jsonb_build_object takes at most 100 arguments: a call per 50 columns.
    for (int i = 0; i < asText.size(); i += 50) {
      row +=
          " || jsonb_build_object("
              + String.join(", ", asText.subList(i, Math.min(asText.size(), i + 50)))
              + ")";
    }
    return "SELECT ("
        + row
        + ")::text FROM "
        + quote(info.schema())
        + "."
        + quote(info.table())
        + " t";
  }

  private static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  /** A Debezium change event of the table at {@code lsn}, marked as an incremental snapshot's. */
  static String event(String op, ObjectNode after, Table table, long lsn) {
    ObjectNode event = Json.mapper().createObjectNode();
    event.putNull("before");
    if (after == null) {
      event.putNull("after");
    } else {
      event.set("after", after);
    }
    ObjectNode source = event.putObject("source");
    source.put("db", table.database());
    source.put("schema", table.schema());
    source.put("table", table.table());
    source.put("lsn", lsn);
    source.put("snapshot", "incremental");
    source.put("ts_ms", System.currentTimeMillis());
    event.put("op", op);
    event.put("ts_ms", System.currentTimeMillis());
    return event.toString();
  }

  /** Waits until {@code group} has committed an offset past each of the {@code written} ones. */
  private void awaitRead(
      Admin admin, String group, Map<TopicPartition, Long> written, Duration timeout)
      throws Exception {
    out.printf("waiting for search-index (consumer group %s) to read them ...%n", group);
    out.flush();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      long behind =
          written.entrySet().stream()
              .filter(
                  w -> {
                    OffsetAndMetadata at = committed.get(w.getKey());
                    return at == null || at.offset() <= w.getValue();
                  })
              .count();
      if (behind == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "search-index (consumer group "
                + group
                + ") has not read the rows read again within "
                + timeout
                + " ("
                + behind
                + " of "
                + written.size()
                + " partitions behind): is it running? The reset was not written; run the"
                + " command again");
      }
      sleep(500);
    }
  }

  private KafkaProducer<byte[], byte[]> producer() {
    Properties p = KafkaClients.clientProperties(config);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** An LSN as PostgreSQL writes it ({@code 16/B374D848}). */
  static String lsnText(long lsn) {
    return Long.toHexString(lsn >>> 32).toUpperCase()
        + "/"
        + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
