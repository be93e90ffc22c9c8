package dev.weir.cli;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.documents.definition.PostgresCatalog;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.stack.FlinkCluster;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "documents",
    mixinStandardHelpOptions = true,
    subcommands = {
      DocumentsCommand.Apply.class,
      DocumentsCommand.Drop.class,
      DocumentsCommand.Resnapshot.class
    },
    description =
        "Declared search documents: a definition file (PGSync's schema.json, plus weir's"
            + " extensions) from which weir builds the join, the Postgres copy and the index.")
final class DocumentsCommand {

  @Spec CommandSpec spec;

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      defaultValueProvider = CatalogUrlDefault.class,
      description = {
        "Resolve each document of FILE against the catalog of its database (on the server of"
            + " --catalog-url) and print where it looked, its tables"
            + " and keys, its relationships, the Postgres copy's table and the Elasticsearch"
            + " mapping, tried on the search cluster (elasticsearch.url: its settings, mapping and"
            + " pipeline); or what is wrong, naming the node or the setting.",
        "User and password as for weir's PostgreSQL (PGUSER, PGPASSWORD or the local stack's)."
            + " Exit code 0 only if weir can use every document."
      })
  int check(
      @Parameters(paramLabel = "FILE", description = "The definition file.") Path file,
      @Option(
              names = "--catalog-url",
              paramLabel = "JDBC_URL",
              description =
                  "The source database's server: each document is read in its own database there"
                      + " (default: ${DEFAULT-VALUE}).")
          String catalogUrl)
      throws SQLException, IOException {
    List<DocumentSpec> documents;
    try {
      documents = DefinitionFile.read(file);
    } catch (DefinitionException e) {
      spec.commandLine().getErr().println("invalid: " + e.getMessage());
      return 1;
    }
    WeirConfig config = WeirConfig.from(Map.of(), System.getenv());
    // Each document's database on the server of the URL, read once however many documents name it.
    Map<String, Connection> connections = new LinkedHashMap<>();
    try (SearchCluster cluster = ElasticsearchConnection.cluster(config)) {
      int failed =
          DefinitionCheck.check(
              documents,
              database -> catalogUrl(catalogUrl, database),
              database -> {
                Connection c = connections.get(database);
                if (c == null) {
                  c = PostgresConnectionProvider.open(config, catalogUrl(catalogUrl, database));
                  c.setReadOnly(true);
                  connections.put(database, c);
                }
                return new PostgresCatalog(c);
              },
              config,
              cluster,
              spec.commandLine().getOut(),
              spec.commandLine().getErr());
      SlotList.print(spec.commandLine().getOut(), catalogUrl, config);
      return failed == 0 ? 0 : 1;
    } finally {
      for (Connection c : connections.values()) {
        c.close();
      }
    }
  }

  private static String catalogUrl(String url, String database) {
    return DocumentOptions.withDatabase(url, database);
  }

  /** --catalog-url defaults to the search-index job's catalog.postgres.url. */
  static final class CatalogUrlDefault implements CommandLine.IDefaultValueProvider {
    @Override
    public String defaultValue(ArgSpec arg) {
      return arg instanceof OptionSpec option && option.longestName().equals("--catalog-url")
          ? DocumentOptions.CATALOG_URL.defaultValue()
          : null;
    }
  }

  @Command(
      name = "apply",
      mixinStandardHelpOptions = true,
      description = {
        "Apply a new definition FILE to the deployment running on the Flink cluster, without"
            + " downtime: a new generation of search-index builds its own copy tables and index"
            + " beside the running one (the capture restarted from a savepoint with the tables"
            + " FILE adds, which it reads alone); once it has caught up, the running generation"
            + " stops, each document's alias moves onto the new index in one alias update, and"
            + " the old copy tables, indices and consumer group are dropped. Shows progress; run"
            + " it again after an interruption to go on; with --abort, it drops FILE's generation"
            + " if not yet swapped in.",
        "Options of the deployment (deployment.id) and of weir's connections (postgres.url,"
            + " elasticsearch.url, kafka.bootstrap-servers, ...) follow as --key value."
      })
  static final class Apply implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The new definition file.")
    Path file;

    @Option(
        names = "--abort",
        description = "Stop and drop the generation of FILE being applied; the running one stays.")
    boolean abort;

    @Option(
        names = "--port",
        defaultValue = "" + FlinkCluster.DEFAULT_REST_PORT,
        description = "The Flink cluster's REST port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--jar", description = "The jar (default: jobs/dist/target/weir-jobs-*.jar).")
    Path jar;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        defaultValue = "30m",
        converter = DurationConverter.class,
        description =
            "How long to wait for the new generation to catch up (default: ${DEFAULT-VALUE});"
                + " run apply again to wait longer.")
    Duration timeout;

    @CommandLine.Unmatched List<String> jobArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      PrintWriter err = spec.commandLine().getErr();
      WeirConfig config = WeirConfig.fromArgs(jobArgs.toArray(String[]::new));
      FlinkCluster flink = new FlinkCluster(LocalStack.fromEnvironment().settings(), port);
      DefinitionApply apply =
          new DefinitionApply(
              config,
              flink,
              jar != null ? jar : ClusterCommand.distJar(),
              timeout,
              spec.commandLine().getOut());
      try {
        if (abort) {
          apply.abort(file);
        } else {
          DefinitionFile.read(file);
          apply.apply(file);
        }
        return 0;
      } catch (IllegalArgumentException | IllegalStateException e) {
        err.println("weir documents apply: " + e.getMessage());
        return 1;
      }
    }
  }

  @Command(
      name = "drop",
      mixinStandardHelpOptions = true,
      description = {
        "Remove what a deployment of FILE made: for each database the file names, the capture's"
            + " replication slot (which else keeps the source's WAL for ever) and publication; for"
            + " each document, its Postgres copy table and the index behind its alias; with"
            + " --topics, its tables' change topics too. Refuses, dropping nothing, while a capture"
            + " still holds a slot: cancel cdc-catalog and search-index first.",
        "Job options (catalog.postgres.url, catalog.slot, postgres.url, elasticsearch.url,"
            + " search.cdc-topic-prefix, ...) follow as --key value, as the jobs were started with."
      })
  static final class Drop implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The definition file.")
    Path file;

    @Option(names = "--topics", description = "Delete the tables' change topics too.")
    boolean topics;

    @CommandLine.Unmatched List<String> jobArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      List<DocumentSpec> documents;
      try {
        documents = DefinitionFile.read(file);
      } catch (DefinitionException e) {
        spec.commandLine().getErr().println("invalid: " + e.getMessage());
        return 1;
      }
      WeirConfig config = WeirConfig.fromArgs(jobArgs.toArray(String[]::new));
      try {
        new DefinitionDrop(config, spec.commandLine().getOut()).drop(documents, topics);
        return 0;
      } catch (IllegalStateException refused) {
        spec.commandLine().getErr().println("weir documents drop: " + refused.getMessage());
        return 1;
      }
    }
  }

  @Command(
      name = "resnapshot",
      mixinStandardHelpOptions = true,
      description = {
        "Read one table of FILE again while the capture and search-index run: its rows go to its"
            + " change topic as an incremental snapshot's reads, ordered with the stream by their"
            + " WAL position; once search-index has read them (its consumer group's committed"
            + " offsets), a reset tells it that the table's rows not read again are gone. No"
            + " other table is read. Safe to run again if it stopped.",
        "Job options (catalog.postgres.url, search.cdc-topic-prefix, deployment.id, ...) follow"
            + " as --key value, as the jobs were started with."
      })
  static final class Resnapshot implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The definition file.")
    Path file;

    @Parameters(
        index = "1",
        paramLabel = "TABLE",
        description = "The table, as table or schema.table.")
    String table;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        defaultValue = "10m",
        converter = DurationConverter.class,
        description =
            "How long to wait for transactions in progress and for search-index to read the rows"
                + " (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @CommandLine.Unmatched List<String> jobArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      PrintWriter err = spec.commandLine().getErr();
      try {
        List<TableResnapshot.Table> tables =
            TableResnapshot.tables(DefinitionFile.read(file), table);
        WeirConfig config =
            WeirConfig.fromArgs(jobArgs.toArray(String[]::new))
                .with(DocumentOptions.DOCUMENTS, file.toString());
        TableResnapshot resnapshot = new TableResnapshot(config, spec.commandLine().getOut());
        for (TableResnapshot.Table t : tables) {
          resnapshot.resnapshot(t, TableResnapshot.rootOf(Definitions.plans(config), t), timeout);
        }
        return 0;
      } catch (IllegalArgumentException | IllegalStateException e) {
        err.println("weir documents resnapshot: " + e.getMessage());
        return 1;
      }
    }
  }
}
