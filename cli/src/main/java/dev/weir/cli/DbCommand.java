package dev.weir.cli;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.Migrations;
import java.util.Map;
import org.flywaydb.core.api.output.MigrateResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "db",
    mixinStandardHelpOptions = true,
    description = "weir's PostgreSQL schema (Flyway migrations).")
final class DbCommand {

  @Spec CommandSpec spec;

  @Command(
      name = "migrate",
      mixinStandardHelpOptions = true,
      description =
          "Apply the migrations in schemas/postgres (weir's tables, then the feed archive's).")
  int migrate(
      @Option(
              names = "--option",
              paramLabel = "KEY=VALUE",
              description = "Job option, e.g. postgres.url=jdbc:...")
          Map<String, String> options) {
    WeirConfig config = WeirConfig.from(options == null ? Map.of() : options, System.getenv());
    MigrateResult weir = Migrations.apply(config);
    spec.commandLine()
        .getOut()
        .printf(
            "weir tables: schema version %s (%d migration(s) applied now)%n",
            weir.targetSchemaVersion == null ? "unchanged" : weir.targetSchemaVersion,
            weir.migrationsExecuted);
    return 0;
  }
}
