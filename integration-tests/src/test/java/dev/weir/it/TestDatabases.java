package dev.weir.it;

import dev.weir.capture.CaptureOptions;
import dev.weir.cli.load.CatalogLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.documents.DocumentOptions;
import dev.weir.search.SearchIndexOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A fresh, migrated database per test on the run's PostgreSQL: tests never see each other's rows.
 */
public final class TestDatabases {

  private TestDatabases() {}

  /** A config whose postgres.url is a new database with weir's migrations applied. */
  public static WeirConfig fresh(WeirConfig base, String prefix) {
    String name = prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    LocalStackExtension.stack().ensurePostgresDatabase(name);
    WeirConfig config =
        base.with(
            WeirOptions.POSTGRES_URL, LocalStackExtension.connections().postgresJdbcUrl(name));
    Migrations.apply(config);
    return config;
  }

  /**
   * {@code base} with a catalog database of its own (its tables created, empty) and its own slot,
   * change topics, alias and DLQ, all named after {@code prefix} (e.g. {@code it.failover}) and
   * {@code run}; its URL is {@link SearchIndexOptions#CATALOG_URL}.
   */
  public static WeirConfig withFreshCatalog(WeirConfig base, String prefix, String run)
      throws SQLException {
    String name = prefix.replace('.', '_');
    String catalogDb = name + "_catalog_" + run;
    LocalStackExtension.stack().ensurePostgresDatabase(catalogDb);
    String catalogUrl = LocalStackExtension.connections().postgresJdbcUrl(catalogDb);
    WeirConfig config =
        CaptureOptions.ownCatalog(
                base,
                catalogUrl,
                name + "_slot_" + run,
                prefix + "." + run,
                prefix.replace('.', '-') + "-products-" + run)
            .with(WeirOptions.DLQ_TOPIC, prefix + ".dlq." + run)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
    CatalogLoader.createTables(config, catalogUrl);
    return config;
  }

  /** A source database a test made for a declared document: its name and its URL. */
  public record Source(String database, String url) {}

  /** A new database {@code database} on the run's PostgreSQL, made by {@code schema}. */
  public static Source freshSource(WeirConfig config, String database, String... schema)
      throws SQLException {
    LocalStackExtension.stack().ensurePostgresDatabase(database);
    Source source =
        new Source(database, LocalStackExtension.connections().postgresJdbcUrl(database));
    execute(config, source.url(), schema);
    return source;
  }

  /**
   * {@code base} capturing {@code source} for the definition {@code file} (which names that
   * database), with its own slot, change topics and DLQ named after {@code prefix} (e.g. {@code
   * it.declared}) and {@code run}.
   */
  public static WeirConfig declaring(
      WeirConfig base, Source source, Path file, String prefix, String run) {
    return CaptureOptions.ownCatalog(
            base,
            source.url(),
            prefix.replace('.', '_') + "_" + run,
            prefix + "." + run,
            "it-unused-" + run)
        .with(DocumentOptions.DOCUMENTS, file.toString())
        .with(WeirOptions.DLQ_TOPIC, prefix + ".dlq." + run)
        .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
  }

  /** A second fresh database, as the archive of {@code config}. */
  public static WeirConfig withSeparateArchive(WeirConfig config) {
    String name = "it_archive_" + UUID.randomUUID().toString().substring(0, 8);
    LocalStackExtension.stack().ensurePostgresDatabase(name);
    WeirConfig withArchive =
        config.with(
            WeirOptions.ARCHIVE_POSTGRES_URL,
            LocalStackExtension.connections().postgresJdbcUrl(name));
    Migrations.apply(withArchive);
    return withArchive;
  }

  /** Runs each statement, in its own transaction, on the database at {@code url}. */
  public static void execute(WeirConfig config, String url, String... statements)
      throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      for (String sql : statements) {
        c.createStatement().execute(sql);
      }
    }
  }

  /** Runs the statements in one transaction. */
  public static void transaction(WeirConfig config, String url, String... statements)
      throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      c.setAutoCommit(false);
      for (String sql : statements) {
        c.createStatement().execute(sql);
      }
      c.commit();
    }
  }

  public static List<String> strings(WeirConfig config, String url, String sql)
      throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection c = PostgresConnectionProvider.open(config, url);
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }

  /**
   * A real failure from PostgreSQL, once: a trigger raises an exception the first time {@code when}
   * holds. A sequence, not a table, remembers it: it is not rolled back with the failed
   * transaction. {@link #failedOnce} tells whether it fired.
   *
   * @param trigger e.g. {@code BEFORE DELETE ON feed_entry FOR EACH STATEMENT}
   * @param when a plpgsql condition (NEW / OLD for row triggers), or {@code true}
   */
  public static void failOnce(WeirConfig config, String url, String trigger, String when)
      throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      c.createStatement().execute("CREATE SEQUENCE crash_once");
      c.createStatement()
          .execute(
              "CREATE FUNCTION crash_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF ("
                  + when
                  + ") AND nextval('crash_once') = 1 THEN RAISE EXCEPTION 'injected crash'; END IF;"
                  + " RETURN NEW; END $$");
      c.createStatement()
          .execute("CREATE TRIGGER crash_once " + trigger + " EXECUTE FUNCTION crash_once()");
    }
  }

  /** Whether the failure of {@link #failOnce} happened. */
  public static boolean failedOnce(WeirConfig config, String url) throws SQLException {
    return strings(config, url, "SELECT is_called FROM crash_once").equals(List.of("t"));
  }
}
