package dev.weir.cli;

import dev.weir.cli.load.GithubLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.feed.ActivityFeedJob;
import dev.weir.feed.FeedOptions;
import dev.weir.feed.FeedQuery;
import dev.weir.identity.IdentityOptions;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import dev.weir.stack.SpannerEmulatorService;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.apache.flink.core.execution.JobClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Start the local stack, run the activity-feed job on the bundled GitHub sample and show what it did;",
      "then capture and index a generated catalog (cdc-catalog, search-index), change it and run the example queries;",
      "then rebuild the catalog's index with a backfill beside the running indexer, swap the alias and search again;",
      "then index a library database from its declared document (schemas/documents/library.json) and change it at every level;",
      "then resolve one shopper's identity (identify, alias, merge) and show her events with their canonical ids"
          + " (on Cloud Spanner's emulator when the stack runs it).",
      "Uses its own databases (weir_demo, weir_demo_catalog, weir_demo_library), topics (demo.*) and aliases (demo-products, demo-books),"
          + " recreated on every run. Exit code 0 only if every section showed what it should."
    })
final class DemoCommand implements Callable<Integer> {

  static final String DATABASE = "weir_demo";
  static final String TOPIC = "demo.activity.events";

  @Spec CommandSpec spec;

  @Option(
      names = "--web-port",
      defaultValue = "8081",
      description = "Port of the Flink web UI while the demo runs (default: ${DEFAULT-VALUE}).")
  int webPort;

  @Option(
      names = "--archive-after",
      defaultValue = "2h",
      description =
          "Event-time age after which entries move to feed_archive (default: ${DEFAULT-VALUE}; the sample spans 3 hours).")
  String archiveAfter;

  @Option(
      names = "--identity-store",
      paramLabel = "postgres|spanner",
      description =
          "Where the identity section keeps its table (default: spanner when the stack runs Cloud"
              + " Spanner's emulator, else postgres).")
  String identityStore;

  /**
   * The web UI ports the demo's jobs take: {@code --web-port} and the next five (each section's
   * MiniCluster serves its own).
   */
  static final int WEB_PORTS = 6;

  @Override
  public Integer call() throws Exception {
    OptionalInt taken = firstTaken(webPort, WEB_PORTS);
    if (taken.isPresent()) {
      throw new IllegalArgumentException(
          String.format(
              "port %d is in use: the demo serves web UIs on ports %d to %d (--web-port and the"
                  + " next %d); choose another with --web-port",
              taken.getAsInt(), webPort, webPort + WEB_PORTS - 1, WEB_PORTS - 1));
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println(
        "== 1. local stack: real Kafka, PostgreSQL and Elasticsearch, fetched from Maven Central");
    out.flush();
    LocalStack stack = LocalStack.fromEnvironment();
    long start = System.nanoTime();
    Connections connections = stack.up();
    StackCommand.printServices(out, stack, stack.startedHere());
    out.printf(
        "   ready in %.1f s; connection settings in %s%n",
        (System.nanoTime() - start) / 1e9, stack.envFile());

    String store =
        identityStore != null ? identityStore : stack.spanner().isUp() ? "spanner" : "postgres";
    if (store.equals("spanner") && !stack.spanner().isUp()) {
      throw new IllegalArgumentException(
          "--identity-store spanner needs the stack's Spanner emulator, which is not running"
              + (stack.spanner().installed()
                  ? ""
                  : " (not installed: " + SpannerEmulatorService.HOW_TO_INSTALL + ")"));
    }
    stack.recreatePostgresDatabase(DATABASE);
    WeirConfig config =
        WeirConfig.from(Map.of(), stack.environment())
            .with(WeirOptions.POSTGRES_URL, connections.postgresJdbcUrl(DATABASE))
            .with(FeedOptions.TOPIC, TOPIC)
            .with(FeedOptions.ARCHIVE_AFTER, archiveAfter)
            .with(WeirOptions.CHECKPOINT_INTERVAL, "2 s");
    KafkaTopics.deleteTopics(config, List.of(TOPIC));

    out.printf(
        "== 2. activity-feed job on a local Flink MiniCluster (web UI: http://127.0.0.1:%d)%n",
        webPort);
    out.flush();
    JobClient job =
        JobRunner.start(new ActivityFeedJob(), RunCommand.localEnvironment(webPort), config);
    List<String> summary = new ArrayList<>();
    try {
      out.println(
          "== 3. sample data: 369 real GitHub events of 2021-07-21 (06:00-09:00 UTC), produced to "
              + TOPIC);
      GithubLoader.Result loaded =
          GithubLoader.load(config, null, TOPIC, spec.commandLine().getErr());
      out.printf("   produced %d events (%d skipped)%n", loaded.produced(), loaded.skipped());
      out.flush();
      long[] counts = awaitStable(config);

      out.println("== 4. what the job did");
      out.printf(
          "   %d events collated into %d feed entries: %d in feed_entry (hot), %d moved to feed_archive (last event > %s before the newest)%n",
          loaded.produced(), counts[0] + counts[1], counts[0], counts[1], archiveAfter);
      out.println(
          "   busiest entries (several events of one person on one repository became ONE entry, updated in place):");
      printBusiest(out, config);
      printFeedPage(out, config);
      summary.add(
          String.format(
              "activity-feed: %d GitHub events collated into %d feed entries (%d hot, %d archived)",
              loaded.produced(), counts[0] + counts[1], counts[0], counts[1]));
    } finally {
      job.cancel().get();
    }
    out.flush();
    BackfillDemo.Result backfill;
    // The catalog's jobs keep running while the backfill rebuilds their index.
    try (CatalogDemo.Running catalog = CatalogDemo.run(out, stack, connections, config, webPort)) {
      summary.add(catalog.summary);
      backfill = BackfillDemo.run(out, spec.commandLine().getErr(), catalog);
      summary.add(backfill.summary());
    }
    summary.add(LibraryDemo.run(out, stack, connections, config, webPort));
    IdentityDemo.Result identity =
        IdentityDemo.run(out, config.with(IdentityOptions.STORE, store), webPort);
    summary.add(identity.summary());

    out.println("== 12. what each job did");
    summary.forEach(line -> out.println("   " + line));
    out.printf(
        "== 13. explore: . %s && psql -d %s (feed_entry, feed_archive, product_document,"
            + " book_document, identity_mapping); curl '%s/%s/_search?q=jacket' ; curl '%s/%s/_search?q=orwell' ;"
            + " weir stack status ; weir stack down%n",
        stack.envFile(),
        DATABASE,
        connections.elasticsearchUrl(),
        CatalogDemo.ALIAS,
        connections.elasticsearchUrl(),
        LibraryDemo.INDEX);
    out.flush();
    return backfill.same() && identity.asExpected() ? 0 : 1;
  }

  /** Waits until the hot and archived counts stop changing (the job writes within seconds). */
  private static long[] awaitStable(WeirConfig config) throws Exception {
    return awaitStable(
        () -> new long[] {count(config, "feed_entry"), count(config, "feed_archive")});
  }

  /**
   * Waits until {@code counts} stop changing for 8 s (and are not all 0), at most 90 s; the last
   * counts.
   */
  static long[] awaitStable(Callable<long[]> counts) throws Exception {
    long[] last = {-1};
    long stableSince = System.nanoTime();
    long deadline = System.nanoTime() + 90_000_000_000L;
    while (System.nanoTime() < deadline) {
      long[] now = counts.call();
      if (!Arrays.equals(now, last) || Arrays.stream(now).sum() == 0) {
        last = now;
        stableSince = System.nanoTime();
      } else if (System.nanoTime() - stableSince > 8_000_000_000L) {
        return now;
      }
      Thread.sleep(500);
    }
    return last;
  }

  private static long count(WeirConfig config, String table) throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void printBusiest(PrintWriter out, WeirConfig config) throws SQLException {
    String sql =
        "SELECT 'hot' AS place, actor_id, action, element_id, event_count, first_at, last_at FROM feed_entry"
            + " UNION ALL SELECT 'archive', actor_id, action, element_id, event_count, first_at, last_at FROM feed_archive"
            + " ORDER BY event_count DESC, last_at DESC LIMIT 5";
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      while (rs.next()) {
        out.printf(
            "   %3d x %-24s %-22s on %-40s %s..%s (%s)%n",
            rs.getInt("event_count"),
            rs.getString("action"),
            rs.getString("actor_id"),
            rs.getString("element_id"),
            rs.getTimestamp("first_at").toInstant(),
            rs.getTimestamp("last_at").toInstant().toString().substring(11),
            rs.getString("place"));
      }
    }
  }

  /** The documented feed query, first page, for the workspace with the most hot entries. */
  private static void printFeedPage(PrintWriter out, WeirConfig config) throws SQLException {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      String workspace;
      try (ResultSet rs =
          c.createStatement()
              .executeQuery(
                  "SELECT workspace_id FROM feed_entry GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1")) {
        if (!rs.next()) {
          return;
        }
        workspace = rs.getString(1);
      }
      out.printf(
          "   the feed of workspace '%s', newest first (FeedQuery.FIRST_PAGE, served by the index):%n",
          workspace);
      try (PreparedStatement ps = c.prepareStatement(FeedQuery.FIRST_PAGE)) {
        ps.setString(1, workspace);
        ps.setInt(2, 5);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.printf(
                "   %s  %-20s %-14s on %-40s x%d%n",
                rs.getTimestamp("last_at").toInstant(),
                rs.getString("actor_id"),
                rs.getString("action"),
                rs.getString("element_id"),
                rs.getInt("event_count"));
          }
        }
      }
    }
  }

  /** The first of the {@code count} ports from {@code first} that cannot be bound on loopback. */
  static OptionalInt firstTaken(int first, int count) {
    for (int port = first; port < first + count; port++) {
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        // free
      } catch (IOException e) {
        return OptionalInt.of(port);
      }
    }
    return OptionalInt.empty();
  }
}
