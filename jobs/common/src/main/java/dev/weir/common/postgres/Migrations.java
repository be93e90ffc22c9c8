package dev.weir.common.postgres;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the versioned DDL in {@code schemas/postgres} with Flyway. Jobs call this at start-up and
 * {@code weir db migrate} runs it on demand; nobody applies DDL by hand.
 */
public final class Migrations {

  /**
   * weir's own tables: feed_entry, identity_mapping (and search_document, the copy of an earlier
   * products job, left for its users to drop). Document copies are search-index's own.
   */
  public static final String WEIR = "weir";

  /** The activity feed's cold store (may live in another database). */
  public static final String ARCHIVE = "archive";

  private Migrations() {}

  /** weir's tables, then the archive's (in its own database when archive.postgres.url says so). */
  public static MigrateResult apply(WeirConfig config) {
    String user = config.get(WeirOptions.POSTGRES_USER);
    String password = config.postgresPassword();
    PostgresTimeouts timeouts = PostgresTimeouts.of(config);
    MigrateResult weir =
        apply(WEIR, config.get(WeirOptions.POSTGRES_URL), user, password, timeouts);
    apply(ARCHIVE, archiveUrl(config), user, password, timeouts);
    return weir;
  }

  public static String archiveUrl(WeirConfig config) {
    return config
        .getOptional(WeirOptions.ARCHIVE_POSTGRES_URL)
        .orElse(config.get(WeirOptions.POSTGRES_URL));
  }

  /** Applies one migration set to one database. */
  private static MigrateResult apply(
      String set, String jdbcUrl, String user, String password, PostgresTimeouts timeouts) {
    return configure(set, jdbcUrl, user, password, timeouts).load().migrate();
  }

  /**
   * Flyway for one migration set in one database; each set keeps its own history table. Its
   * connections get the timeouts of the jobs' own: the driver's, without which a database that
   * stops answering hangs a job's start (or {@code weir db migrate}) for ever, and PostgreSQL's, so
   * that the socket timeout never cuts a migration statement PostgreSQL is still running. A
   * migration that needs longer is run with longer ones, e.g. {@code weir db migrate --option
   * postgres.statement-timeout=30min --option postgres.socket-timeout=31min}.
   */
  static FluentConfiguration configure(
      String set, String jdbcUrl, String user, String password, PostgresTimeouts timeouts) {
    return Flyway.configure(Migrations.class.getClassLoader())
        .dataSource(jdbcUrl, user, password)
        .jdbcProperties(timeouts.driverProperties())
        .initSql(timeouts.sessionSql())
        .locations("classpath:weir/schemas/postgres/" + set)
        .table(WEIR.equals(set) ? "weir_schema_history" : "weir_" + set + "_schema_history")
        .baselineOnMigrate(true)
        .baselineVersion("0");
  }
}
