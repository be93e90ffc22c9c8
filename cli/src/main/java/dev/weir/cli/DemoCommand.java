package dev.weir.cli;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.job.JobRunner;
import dev.weir.common.postgres.Migrations;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.PrintWriter;
import java.util.Map;
import org.flywaydb.core.api.output.MigrateResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Start the local stack, prepare the database, load the bundled GitHub sample and show what happened.")
final class DemoCommand implements java.util.concurrent.Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    out.println("== 1. local stack (real Kafka, PostgreSQL, Elasticsearch from Maven Central)");
    out.flush();
    LocalStack stack = LocalStack.fromEnvironment();
    long start = System.nanoTime();
    Connections connections = stack.up();
    StackCommand.printServices(out, stack, stack.startedHere());
    out.printf(
        "   ready in %.1f s; settings in %s%n", (System.nanoTime() - start) / 1e9, stack.envFile());

    WeirConfig config = WeirConfig.from(Map.of(), connections.environment());
    out.println("== 2. database schema (Flyway migrations from schemas/postgres)");
    MigrateResult migrated = Migrations.apply(config);
    out.printf(
        "   weir tables at schema version %s; %d migration(s) applied now%n",
        migrated.targetSchemaVersion == null ? "(unchanged)" : migrated.targetSchemaVersion,
        migrated.migrationsExecuted);

    out.println(
        "== 3. sample data: 369 real GitHub events (2021-07-21) mapped onto activity.events");
    out.flush();
    LoadCommand.Loaded loaded =
        LoadCommand.loadGithub(config, null, "activity.events", spec.commandLine().getErr());
    out.printf(
        "   produced %d events to activity.events at %s (%d skipped)%n",
        loaded.produced(), connections.kafkaBootstrapServers(), loaded.skipped());

    out.println("== 4. jobs");
    out.printf(
        "   jobs in this build: %s%n",
        JobRunner.jobs().isEmpty() ? "(none yet)" : String.join(", ", JobRunner.jobs().keySet()));
    out.println(
        "   the stack stays up: `weir stack status`, `weir stack down`; psql works after `. .weir/stack.env`");
    out.flush();
    return 0;
  }
}
