package dev.weir.capture;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.documents.DocumentOptions;
import io.debezium.relational.TableId;
import java.io.Serial;
import java.io.Serializable;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.flink.cdc.connectors.base.config.JdbcSourceConfig;
import org.apache.flink.cdc.connectors.base.options.StartupOptions;
import org.apache.flink.cdc.connectors.base.relational.connection.JdbcConnectionPoolFactory;
import org.apache.flink.cdc.connectors.base.source.meta.split.SourceSplitBase;
import org.apache.flink.cdc.connectors.base.source.reader.external.FetchTask;
import org.apache.flink.cdc.connectors.postgres.source.PostgresConnectionPoolFactory;
import org.apache.flink.cdc.connectors.postgres.source.PostgresDialect;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder.PostgresIncrementalSource;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfig;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfigFactory;
import org.apache.flink.cdc.connectors.postgres.source.offset.PostgresOffsetFactory;
import org.apache.flink.cdc.debezium.DebeziumDeserializationSchema;

/**
 * Flink CDC's incremental Postgres source, built so that the database password is not part of the
 * job's graph. Flink CDC's builder keeps the password in the source's settings and in its dialect's
 * copy of them, and Flink serializes the source into the job graph (on Kubernetes, into the HA
 * store). Here the settings hold no password: each process that connects (the JobManager's
 * enumerator, each reader) reads it from its own environment or secret file, as every other weir
 * client does ({@link WeirConfig#postgresPassword()}).
 */
final class CatalogSource {

  private CatalogSource() {}

  /** pgjdbc's TLS parameters of the catalog URL, passed on as Debezium's {@code database.*}. */
  static final List<String> TLS_PARAMETERS =
      List.of("sslmode", "sslrootcert", "sslcert", "sslkey"); // sslpassword: refused by WeirConfig

  /**
   * Captures {@code tables} ({@code schema.table}) of {@code database} on the server of {@link
   * DocumentOptions#CATALOG_URL} through the replication slot {@code slot} (and the publication in
   * {@code debezium}).
   */
  static <T> PostgresIncrementalSource<T> create(
      WeirConfig config,
      String database,
      String slot,
      List<String> tables,
      Properties debezium,
      DebeziumDeserializationSchema<T> deserializer) {
    ConfigFactory factory = configFactory(config, database, slot, tables, debezium);
    return new PostgresIncrementalSource<>(
        factory, deserializer, new PostgresOffsetFactory(), new Dialect(factory));
  }

  /**
   * The settings {@code PostgresIncrementalSource.builder()} would make, applied as its setters
   * apply them (each hands its value to the config factory), on the factory below instead of Flink
   * CDC's.
   */
  static ConfigFactory configFactory(
      WeirConfig config, String database, String slot, List<String> tables, Properties debezium) {
    String url = config.get(DocumentOptions.CATALOG_URL);
    URI catalog = URI.create(url.substring("jdbc:".length()));
    Properties properties = new Properties();
    properties.putAll(debezium);
    properties.putAll(tlsProperties(url));
    ConfigFactory factory = new ConfigFactory(config);
    factory.hostname(catalog.getHost());
    factory.port(catalog.getPort() < 0 ? 5432 : catalog.getPort());
    factory.database(database);
    factory.schemaList(
        tables.stream().map(t -> t.substring(0, t.indexOf('.'))).distinct().toArray(String[]::new));
    factory.tableList(tables.toArray(String[]::new));
    factory.username(config.get(WeirOptions.POSTGRES_USER));
    factory.slotName(slot);
    factory.decodingPluginName("pgoutput");
    factory.debeziumProperties(properties);
    factory.startupOptions(StartupOptions.initial());
    // Restored with a table it did not capture before (a definition applied beside the running
    // one), the source reads that table's snapshot alone, then streams it with the others.
    factory.scanNewlyAddedTableEnabled(true);
    factory.heartbeatInterval(config.get(CaptureOptions.HEARTBEAT));
    return factory;
  }

  /**
   * The catalog URL's TLS parameters as Debezium properties (its connections, the snapshot's and
   * the replication's, are made from host, port and database, not from the URL). Any other
   * parameter is refused rather than silently left out.
   */
  static Map<String, String> tlsProperties(String url) {
    String query = URI.create(url.substring("jdbc:".length())).getRawQuery();
    Map<String, String> properties = new TreeMap<>();
    if (query == null || query.isEmpty()) {
      return properties;
    }
    for (String parameter : query.split("&")) {
      String[] keyValue = parameter.split("=", 2);
      String key = URLDecoder.decode(keyValue[0], StandardCharsets.UTF_8);
      if (!TLS_PARAMETERS.contains(key)) {
        throw new IllegalArgumentException(
            "cdc-catalog: "
                + DocumentOptions.CATALOG_URL.key()
                + " has the parameter '"
                + key
                + "', which the capture cannot use; it takes "
                + String.join(", ", TLS_PARAMETERS));
      }
      String value =
          keyValue.length > 1 ? URLDecoder.decode(keyValue[1], StandardCharsets.UTF_8) : "";
      properties.put("database." + key, value);
    }
    return properties;
  }

  /** Flink CDC's settings, with the password read in the process that creates the config. */
  static final class ConfigFactory extends PostgresSourceConfigFactory {
    @Serial private static final long serialVersionUID = 1L;

    private final WeirConfig config;

    ConfigFactory(WeirConfig config) {
      this.config = config;
    }

    @Override
    public synchronized PostgresSourceConfig create(int subtaskId) {
      password = config.postgresPassword();
      try {
        return super.create(subtaskId);
      } finally {
        password = null; // the factory is serialized with the source: never with the password
      }
    }
  }

  /**
   * Flink CDC's dialect keeps the config it was made with (password included): it is serialized as
   * its factory and made again, with a config of the receiving process, where it is read. Its
   * snapshot splits are read by {@link SnapshotScan}.
   */
  static final class Dialect extends PostgresDialect {
    @Serial private static final long serialVersionUID = 1L;

    private final transient ConfigFactory factory;

    Dialect(ConfigFactory factory) {
      super(factory.create(0));
      this.factory = factory;
    }

    /**
     * The captured tables in the order of the table list ({@link
     * dev.weir.documents.Definitions#tablesByDatabase}, children before parents): Flink CDC reads
     * their snapshots in the order it discovers them.
     */
    @Override
    public List<TableId> discoverDataCollections(JdbcSourceConfig sourceConfig) {
      List<String> order = sourceConfig.getTableList();
      List<TableId> tables = new ArrayList<>(super.discoverDataCollections(sourceConfig));
      tables.sort(
          Comparator.comparingInt(
              t -> {
                int at = order.indexOf(t.schema() + "." + t.table());
                return at < 0 ? Integer.MAX_VALUE : at;
              }));
      return tables;
    }

    @Override
    public JdbcConnectionPoolFactory getPooledDataSourceFactory() {
      return new VerifiedPool();
    }

    @Override
    public FetchTask<SourceSplitBase> createFetchTask(SourceSplitBase split) {
      return split.isSnapshotSplit()
          ? new SnapshotScan(split.asSnapshotSplit())
          : super.createFetchTask(split);
    }

    @Serial
    private Object writeReplace() {
      return new SerializedDialect(factory);
    }
  }

  /**
   * Flink CDC's pool of JDBC connections (table discovery, chunk splitting, the snapshot's reads),
   * on a URL with the catalog URL's TLS parameters. Flink CDC's own URL has host, port and database
   * only: the driver would then speak TLS when the server offers it ("prefer") but take any
   * server's certificate, whatever {@code sslmode=verify-full} the catalog URL asks for.
   */
  static final class VerifiedPool extends PostgresConnectionPoolFactory {
    @Override
    public String getJdbcUrl(JdbcSourceConfig sourceConfig) {
      return super.getJdbcUrl(sourceConfig) + tlsQuery(sourceConfig.getDbzProperties());
    }
  }

  /** The TLS parameters among Debezium's {@code database.*} properties, as a URL's query. */
  static String tlsQuery(Properties debezium) {
    StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
    for (String parameter : TLS_PARAMETERS) {
      String value = debezium.getProperty("database." + parameter);
      if (value != null) {
        query.add(parameter + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
      }
    }
    return query.toString();
  }

  private record SerializedDialect(ConfigFactory factory) implements Serializable {
    @Serial
    private Object readResolve() {
      return new Dialect(factory);
    }
  }
}
