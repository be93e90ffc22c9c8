package dev.weir.common.postgres;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import org.flywaydb.core.Flyway;
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
    MigrateResult weir = apply(WEIR, config.get(WeirOptions.POSTGRES_URL), user, password);
    apply(ARCHIVE, archiveUrl(config), user, password);
    return weir;
  }

  public static String archiveUrl(WeirConfig config) {
    return config
        .getOptional(WeirOptions.ARCHIVE_POSTGRES_URL)
        .orElse(config.get(WeirOptions.POSTGRES_URL));
  }

  /** Applies one migration set to one database; each set keeps its own history table. */
  public static MigrateResult apply(String set, String jdbcUrl, String user, String password) {
    return Flyway.configure(Migrations.class.getClassLoader())
        .dataSource(jdbcUrl, user, password)
        .locations("classpath:weir/schemas/postgres/" + set)
        .table(WEIR.equals(set) ? "weir_schema_history" : "weir_" + set + "_schema_history")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }
}
