package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.cli.WeirCli;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.Await;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import dev.weir.it.TestDatabases.Source;
import dev.weir.schema.Json;
import dev.weir.stack.FlinkCluster;
import dev.weir.stack.LocalStack;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code weir documents apply NEW.json} on a deployment running on a real Flink cluster (the dist
 * jar, cdc-catalog and search-index submitted through the REST API): the new file adds a child
 * whose table the capture did not carry and renames a field. A search every 50 ms against the
 * alias, through the whole apply, never fails and never sees a document that is neither the old
 * definition's nor the new one's; a change made while the new generation builds is in the documents
 * after; what the old generation alone used is gone.
 */
@ExtendWith(LocalStackExtension.class)
class DocumentsApplyITCase {

  private static final int PORT = 18381;
  private static final Duration WAIT = Duration.ofSeconds(180);

  private static FlinkCluster cluster;

  @TempDir Path dir;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startTheCluster() {
    LocalStack stack = LocalStackExtension.stack();
    cluster = new FlinkCluster(stack.settings(), PORT);
    cluster.up(1, stack.environment());
  }

  @AfterAll
  static void stopTheCluster() {
    if (cluster != null && !Boolean.getBoolean("weir.cluster.keep")) {
      cluster.down();
    }
  }

  @Test
  void anApplyThatAddsAChildAndRenamesAFieldServesEverySearch() throws Exception {
    Deployment d = deploy("apply");
    WeirConfig config = d.config();
    String url = d.url();
    String alias = d.alias();
    Path newFile = d.newFile();
    DocumentPlan oldPlan = Definitions.plans(config).get(0);
    DocumentPlan newPlan =
        Definitions.plans(config.with(DocumentOptions.DOCUMENTS, newFile.toString())).get(0);
    assertThat(newPlan.index()).isEqualTo(alias);

    String oldJob = d.searchIndex();
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      Map<String, JsonNode> before = sql(config, url, oldPlan);
      Await.until(WAIT, () -> DocumentSides.indexed(es, alias), before::equals);
      List<Map<String, JsonNode>> accepted = new CopyOnWriteArrayList<>();
      accepted.add(sql(config, url, oldPlan));
      accepted.add(sql(config, url, newPlan));
      assertThat(accepted.get(0).get("b-1984").has("reviews")).isFalse();

      SearchLoop searches = new SearchLoop(es, alias, 3, accepted);
      CompletableFuture<Void> loop = CompletableFuture.runAsync(searches::run);
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CompletableFuture<Integer> apply =
          CompletableFuture.supplyAsync(() -> cli(applyArgs(config, newFile), out, err));

      // A change while the new generation builds: it reaches the documents after the swap.
      Await.until(WAIT, () -> runningSearchIndexJobs().size(), n -> n == 2);
      String changeReview = "UPDATE review SET stars = 4, body = 'Still chilling'";
      TestDatabases.transaction(
          config,
          url,
          "UPDATE book SET title = 'Animal Farm: A Fairy Story' WHERE isbn = 'b-farm'");
      TestDatabases.transaction(config, url, changeReview);
      accepted.add(sql(config, url, oldPlan));
      accepted.add(sql(config, url, newPlan));

      int code = apply.get();
      System.out.println("weir documents apply:\n" + out + err);
      searches.stop();
      loop.get();
      assertThat(code).as("apply: %s%s", out, err).isZero();
      assertThat(out.toString())
          .contains("capture: adding")
          .contains("generation g2")
          .contains("swapped")
          .contains("applied");

      System.out.printf(
          "searches through the apply: %d, failed %d, wrong %d%n",
          searches.searches.get(), searches.failures.size(), searches.wrong.size());
      assertThat(searches.searches.get()).as("searches made").isGreaterThan(20);
      assertThat(searches.failures).as("failed searches").isEmpty();
      assertThat(searches.wrong).as("wrong searches").isEmpty();

      // The alias serves the new definition's documents, the change made meanwhile included.
      Map<String, JsonNode> expected = sql(config, url, newPlan);
      Await.until(WAIT, () -> DocumentSides.indexed(es, alias), expected::equals);
      assertThat(expected.get("b-1984").path("reviews").get(0).path("body").asText())
          .isEqualTo("Still chilling");
      assertThat(expected.get("b-farm").path("book_title").asText())
          .isEqualTo("Animal Farm: A Fairy Story");
      WeirConfig g2 =
          config
              .with(DocumentOptions.DOCUMENTS, newFile.toString())
              .with(WeirOptions.GENERATION, "g2");
      DocumentPlan g2Plan = Definitions.plans(g2).get(0);
      assertThat(DocumentSides.copied(g2, g2Plan)).isEqualTo(expected);

      // What the old generation alone used is gone; the new one runs on.
      assertThat(cluster.job(oldJob).state()).isEqualTo("CANCELED");
      assertThat(runningSearchIndexJobs()).hasSize(1);
      assertThat(tableExists(config, oldPlan.copyTable())).isFalse();
      assertThat(es.indexExists(alias + "-v1")).isFalse();
      assertThat(es.indicesBehind(alias)).containsExactly(alias + "-g2-v1");

      // A rebuild of the generation's index moves the alias searches read with its write alias,
      // and the running generation goes on writing to what searches read.
      List<String> backfill =
          new ArrayList<>(
              List.of(
                  "backfill", "--target", alias + "-g2-v2", "--swap-alias", "--parallelism", "1"));
      g2.asMap().forEach((k, v) -> backfill.addAll(List.of("--" + k, v)));
      StringWriter rebuilt = new StringWriter();
      assertThat(cli(backfill, rebuilt, err)).as("backfill: %s%s", rebuilt, err).isZero();
      assertThat(es.indicesBehind(alias)).containsExactly(alias + "-g2-v2");
      assertThat(es.indicesBehind(alias + "-g2")).containsExactly(alias + "-g2-v2");
      TestDatabases.transaction(
          config,
          url,
          "UPDATE book SET title = 'Homage to Catalonia (1938)' WHERE isbn = 'b-homage'");
      Map<String, JsonNode> changed = sql(config, url, newPlan);
      Await.until(WAIT, () -> DocumentSides.indexed(es, alias), changed::equals);

      // Applying the same file again changes nothing.
      StringWriter again = new StringWriter();
      assertThat(cli(applyArgs(config, newFile), again, err)).isZero();
      assertThat(again.toString()).contains("already applied");
    } finally {
      cancelRunningJobs();
    }
  }

  /**
   * An apply interrupted while the new generation builds is resumed by the same command, or
   * aborted: the new generation's job, copy and index go, the old one serves on.
   */
  @Test
  void anInterruptedApplyIsResumedOrAborted() throws Exception {
    Deployment d = deploy("resume");
    WeirConfig config = d.config();
    // Only a rename: no table to add to the capture.
    Files.writeString(
        d.newFile(),
        Files.readString(d.oldFile())
            .replace("\"published_on\"", "\"published_on\", \"title\": \"name\""));
    WeirConfig g2 =
        config
            .with(DocumentOptions.DOCUMENTS, d.newFile().toString())
            .with(WeirOptions.GENERATION, "g2");
    DocumentPlan g2Plan = Definitions.plans(g2).get(0);
    try (SearchCluster es = ElasticsearchConnection.cluster(config)) {
      Map<String, JsonNode> before = sql(config, d.url(), Definitions.plans(config).get(0));
      Await.until(WAIT, () -> DocumentSides.indexed(es, d.alias()), before::equals);
      Set<String> served = es.indicesBehind(d.alias());

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      assertThat(cli(applyArgs(config, d.newFile(), "1ms"), out, err)).as("%s", out).isOne();
      assertThat(err.toString()).contains("run apply again to go on waiting, or --abort");
      assertThat(runningSearchIndexJobs()).hasSize(2);

      assertThat(cli(abortArgs(config, d.newFile()), out, err))
          .as("abort: %s%s", out, err)
          .isZero();
      assertThat(runningSearchIndexJobs()).containsExactly(d.searchIndex());
      assertThat(tableExists(config, g2Plan.copyTable())).isFalse();
      assertThat(es.aliasExists(g2Plan.index())).isFalse();
      assertThat(es.indicesBehind(d.alias())).isEqualTo(served);
      assertThat(DocumentSides.indexed(es, d.alias())).isEqualTo(before);

      assertThat(cli(applyArgs(config, d.newFile(), "1ms"), out, err)).isOne();
      StringWriter resumed = new StringWriter();
      assertThat(cli(applyArgs(config, d.newFile(), "3m"), resumed, err))
          .as("resumed: %s%s", resumed, err)
          .isZero();
      assertThat(resumed.toString()).contains("resuming the apply").contains("applied");
      Map<String, JsonNode> expected =
          sql(
              config,
              d.url(),
              Definitions.plans(config.with(DocumentOptions.DOCUMENTS, d.newFile().toString()))
                  .get(0));
      assertThat(expected.get("b-1984").has("name")).isTrue();
      Await.until(WAIT, () -> DocumentSides.indexed(es, d.alias()), expected::equals);
      assertThat(es.indicesBehind(d.alias())).containsExactly(d.alias() + "-g2-v1");
    } finally {
      cancelRunningJobs();
    }
  }

  /** A deployment of library.json without reviews on a database of its own, running. */
  private record Deployment(
      WeirConfig config,
      String url,
      String alias,
      Path oldFile,
      Path newFile,
      String searchIndex) {}

  private Deployment deploy(String name) throws Exception {
    WeirConfig base = TestDatabases.fresh(LocalStackExtension.config(), "it_" + name);
    Source source =
        TestDatabases.freshSource(
            base, "it_" + name + "_" + run, resource("weir/schemas/documents/library.sql"));
    String database = source.database();
    String url = source.url();
    TestDatabases.transaction(
        base,
        url,
        "INSERT INTO continent VALUES ('eu', 'Europe')",
        "INSERT INTO country VALUES ('uk', 'United Kingdom', 'eu')",
        "INSERT INTO city VALUES ('c-london', 'London', 'uk')",
        "INSERT INTO author VALUES ('a-orwell', 'George Orwell', 'c-london')",
        "INSERT INTO publisher VALUES ('p-secker', 'Secker & Warburg')",
        "INSERT INTO subject VALUES (1, 'Dystopia')",
        book("b-1984", "Nineteen Eighty-Four"),
        book("b-farm", "Animal Farm"),
        book("b-homage", "Homage to Catalonia"),
        "INSERT INTO book_author VALUES ('b-1984', 'a-orwell'), ('b-farm', 'a-orwell')",
        "INSERT INTO book_subject VALUES ('b-1984', 1)",
        "INSERT INTO review VALUES ('00000000-0000-0000-0000-000000000001', 'b-1984', 5,"
            + " 'Chilling')");
    String alias = "it-" + name + "-" + run;
    Path oldFile = dir.resolve(name + "-old.json");
    Path newFile = dir.resolve(name + "-new.json");
    String copyTable = name + "_" + run + "_document";
    Files.writeString(oldFile, definition(database, alias, copyTable, false));
    Files.writeString(newFile, definition(database, alias, copyTable, true));
    WeirConfig config =
        TestDatabases.declaring(base, source, oldFile, "it." + name, run)
            .with(WeirOptions.DEPLOYMENT_ID, name + "-" + run);
    submit("cdc-catalog", config);
    String searchIndex = submit("search-index", config);
    return new Deployment(config, url, alias, oldFile, newFile, searchIndex);
  }

  private static void cancelRunningJobs() throws Exception {
    for (FlinkCluster.JobSummary job : cluster.jobs()) {
      if (job.state().equals("RUNNING")) {
        cluster.cancel(job.id());
      }
    }
  }

  /** Searches the alias until stopped, checking each answer against the accepted documents. */
  private static final class SearchLoop {
    private final SearchCluster es;
    private final String alias;
    private final int documents;
    private final List<Map<String, JsonNode>> accepted;
    private final AtomicBoolean stopped = new AtomicBoolean();
    final AtomicInteger searches = new AtomicInteger();
    final List<String> failures = new CopyOnWriteArrayList<>();
    final List<String> wrong = new CopyOnWriteArrayList<>();

    SearchLoop(
        SearchCluster es, String alias, int documents, List<Map<String, JsonNode>> accepted) {
      this.es = es;
      this.alias = alias;
      this.documents = documents;
      this.accepted = accepted;
    }

    void run() {
      ObjectNode query = Json.mapper().createObjectNode().put("size", 100);
      query.putObject("query").putObject("match_all");
      while (!stopped.get()) {
        int n = searches.incrementAndGet();
        try {
          JsonNode hits = es.search(alias, query).path("hits").path("hits");
          if (hits.size() != documents) {
            failures.add("search " + n + ": " + hits.size() + " hits");
          }
          for (JsonNode hit : hits) {
            ObjectNode source = hit.get("_source").deepCopy();
            source.remove(DocumentPlan.CONTENT_HASH);
            JsonNode doc = SqlDocuments.normalized(source);
            String id = hit.path("_id").asText();
            if (accepted.stream().noneMatch(a -> doc.equals(a.get(id)))) {
              wrong.add("search " + n + ": " + id + " = " + doc);
            }
          }
        } catch (Exception e) {
          failures.add("search " + n + ": " + e);
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    void stop() {
      stopped.set(true);
    }
  }

  /**
   * library.json on this run's database and alias; the old one without reviews, the new one with
   * them and the title renamed.
   */
  private static String definition(String database, String alias, String copyTable, boolean next)
      throws Exception {
    ArrayNode file =
        (ArrayNode) Json.mapper().readTree(resource("weir/schemas/documents/library.json"));
    ObjectNode document = (ObjectNode) file.get(0);
    document.put("database", database);
    document.put("index", alias);
    document.putObject("weir").put("copy_table", copyTable);
    ObjectNode root = (ObjectNode) document.get("nodes");
    if (next) {
      ((ObjectNode) root.path("transform").path("rename")).put("title", "book_title");
    } else {
      ArrayNode children = (ArrayNode) root.get("children");
      for (int i = 0; i < children.size(); i++) {
        if (children.get(i).path("table").asText().equals("review")) {
          children.remove(i);
          break;
        }
      }
    }
    return file.toPrettyString();
  }

  private static String book(String isbn, String title) {
    return String.format(
        "INSERT INTO book VALUES ('%s', '%s', 'about %s', 9.99, '1949-06-08',"
            + " '{\"shelf\": \"classics\"}', 'p-secker')",
        isbn, title, title);
  }

  private static List<String> applyArgs(WeirConfig config, Path file) {
    return applyArgs(config, file, "3m");
  }

  private static List<String> applyArgs(WeirConfig config, Path file, String timeout) {
    List<String> args = new ArrayList<>(List.of("documents", "apply", file.toString()));
    args.addAll(connectionArgs(config, timeout));
    return args;
  }

  private static List<String> abortArgs(WeirConfig config, Path file) {
    List<String> args = new ArrayList<>(List.of("documents", "apply", file.toString(), "--abort"));
    args.addAll(connectionArgs(config, "3m"));
    return args;
  }

  private static List<String> connectionArgs(WeirConfig config, String timeout) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "--port",
            Integer.toString(PORT),
            "--jar",
            FlinkCluster.jobsJar(Path.of("..")).toString(),
            "--timeout",
            timeout));
    args.addAll(
        DocumentSides.cliOptions(
            config,
            WeirOptions.DEPLOYMENT_ID,
            WeirOptions.POSTGRES_URL,
            WeirOptions.ELASTICSEARCH_URL,
            WeirOptions.KAFKA_BOOTSTRAP_SERVERS));
    return args;
  }

  private static String submit(String job, WeirConfig config) throws Exception {
    List<String> args = new ArrayList<>(List.of("--job", job));
    config.asMap().forEach((k, v) -> args.addAll(List.of("--" + k, v)));
    return cluster.submit(
        FlinkCluster.jobsJar(Path.of("..")), "dev.weir.common.job.JobRunner", args, 1, null);
  }

  private static List<String> runningSearchIndexJobs() throws Exception {
    return cluster.jobs().stream()
        .filter(j -> j.name().equals("weir search-index") && j.state().equals("RUNNING"))
        .map(FlinkCluster.JobSummary::id)
        .toList();
  }

  private static Map<String, JsonNode> sql(WeirConfig config, String url, DocumentPlan plan)
      throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      return new TreeMap<>(SqlDocuments.read(c, plan));
    }
  }

  private static boolean tableExists(WeirConfig config, String table) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config);
        ResultSet r =
            c.createStatement()
                .executeQuery("SELECT to_regclass('\"" + table + "\"') IS NOT NULL")) {
      r.next();
      return r.getBoolean(1);
    }
  }

  private static int cli(List<String> args, StringWriter out, StringWriter err) {
    return new CommandLine(new WeirCli())
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .execute(args.toArray(String[]::new));
  }

  private static String resource(String name) throws Exception {
    try (InputStream in = DocumentsApplyITCase.class.getClassLoader().getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
