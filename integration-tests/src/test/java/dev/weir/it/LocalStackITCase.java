package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import dev.weir.stack.StackException;
import dev.weir.stack.StackSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalStackExtension.class)
class LocalStackITCase {

  @Test
  void everyServiceIsUpAndStackEnvConnectsLikeLibpqWould() throws Exception {
    LocalStack stack = LocalStackExtension.stack();
    assertThat(stack.services()).allMatch(LocalService::isUp);

    Map<String, String> env = readEnvFile(stack.envFile());
    assertThat(env)
        .containsEntry("SEARCH_ENGINE", stack.searchEngine().key())
        .containsKeys(
            "KAFKA_BOOTSTRAP_SERVERS",
            "ELASTICSEARCH_URL",
            "POSTGRES_JDBC_URL",
            "CATALOG_JDBC_URL",
            "PGHOST",
            "PGPORT",
            "PGUSER",
            "PGPASSWORD",
            "PGDATABASE");
    if (stack.spanner().installed()) {
      assertThat(env).containsAllEntriesOf(stack.spanner().environment());
    }
    String url =
        "jdbc:postgresql://"
            + env.get("PGHOST")
            + ":"
            + env.get("PGPORT")
            + "/"
            + env.get("PGDATABASE");
    try (Connection c = DriverManager.getConnection(url, env.get("PGUSER"), env.get("PGPASSWORD"));
        ResultSet rs = c.createStatement().executeQuery("SHOW wal_level")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("logical");
    }
  }

  @Test
  void upAgainReusesWhatIsRunning() {
    LocalStack again = LocalStack.fromEnvironment();
    again.up();
    assertThat(again.startedHere()).isEmpty();
  }

  @Test
  void theProductsMappingFromSchemasIsAcceptedByTheRealElasticsearch() throws Exception {
    String index = "mapping-check-" + System.nanoTime();
    String mapping =
        new String(
            getClass()
                .getClassLoader()
                .getResourceAsStream("weir/schemas/elasticsearch/products.mapping.json")
                .readAllBytes());
    HttpClient http = HttpClient.newHttpClient();
    String es = LocalStackExtension.connections().elasticsearchUrl();
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(URI.create(es + "/" + index))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(mapping))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    http.send(
        HttpRequest.newBuilder(URI.create(es + "/" + index)).DELETE().build(),
        HttpResponse.BodyHandlers.discarding());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
  }

  @Test
  void aServiceThatCannotComeUpIsNamedClearly() {
    StackSettings shared = LocalStackExtension.stack().settings();
    Path home = Path.of("target", "conflicting-stack").toAbsolutePath();
    Properties p = new Properties();
    p.setProperty("weir.home", home.toString());
    p.setProperty("weir.kafka.port", Integer.toString(shared.kafkaPort()));
    p.setProperty("weir.postgres.port", Integer.toString(shared.postgresPort()));
    // The search engine pointed at the Kafka broker's port: something answers, but no search node.
    p.setProperty("weir.elasticsearch.port", Integer.toString(shared.kafkaPort()));
    LocalStack conflicting = new LocalStack(settings(p));
    assertThatThrownBy(conflicting::up)
        .isInstanceOf(StackException.class)
        .hasMessageContaining(conflicting.elasticsearch().name() + ": port " + shared.kafkaPort())
        // Its own PostgreSQL password (another home) is not the running server's.
        .hasMessageContaining("PostgreSQL: port " + shared.postgresPort());
  }

  @Test
  void aPostgreSQLThatIsNotTheStacksOwnIsNotTakenForIt() throws Exception {
    StackSettings shared = LocalStackExtension.stack().settings();
    Path home = Path.of("target", "borrowing-stack").toAbsolutePath();
    // The shared stack's password: its server accepts this stack's connections, as a server that
    // trusts local connections would.
    Files.createDirectories(home.resolve("postgres"));
    Files.copy(
        shared.home().resolve("postgres").resolve("password"),
        home.resolve("postgres").resolve("password"),
        StandardCopyOption.REPLACE_EXISTING);
    Properties p = new Properties();
    p.setProperty("weir.home", home.toString());
    p.setProperty("weir.postgres.port", Integer.toString(shared.postgresPort()));
    LocalService postgres =
        new LocalStack(settings(p))
            .services().stream()
                .filter(s -> s.name().equals("PostgreSQL"))
                .findFirst()
                .orElseThrow();

    assertThat(postgres.isUp()).isFalse();
    assertThat(postgres.portTaken()).isTrue();
    assertThatThrownBy(postgres::start)
        .isInstanceOf(StackException.class)
        .hasMessageContaining("port " + shared.postgresPort() + " is taken by another PostgreSQL")
        .hasMessageContaining(shared.home().resolve("postgres").resolve("data").toString());
  }

  @Test
  void aKafkaOrSearchNodeThatThisStackDidNotStartIsNotTakenForItsOwn() {
    StackSettings shared = LocalStackExtension.stack().settings();
    // Another stack's home on the shared stack's ports: its brokers and nodes answer, healthy,
    // but they are not the ones this stack started.
    Properties p = new Properties();
    p.setProperty("weir.home", Path.of("target", "borrowing-stack").toAbsolutePath().toString());
    p.setProperty("weir.kafka.port", Integer.toString(shared.kafkaPort()));
    p.setProperty("weir.elasticsearch.port", Integer.toString(shared.elasticsearchPort()));
    p.setProperty("weir.spanner.port", Integer.toString(shared.spannerPort()));
    LocalStack borrowing = new LocalStack(settings(p));
    List<LocalService> borrowed =
        borrowing.services().stream().filter(service -> service != borrowing.postgres()).toList();
    for (LocalService service : borrowed) {
      assertThat(service.isUp()).as(service.name()).isFalse();
      assertThat(service.portTaken()).as(service.name()).isTrue();
      assertThatThrownBy(service::start)
          .as(service.name())
          .isInstanceOf(StackException.class)
          .hasMessageContaining(service.name() + ": port " + service.port() + " is taken by")
          .hasMessageContaining("this stack did not start");
    }
    assertThat(LocalStackExtension.stack().services())
        .allMatch(LocalService::isUp)
        .noneMatch(LocalService::portTaken);
  }

  @Test
  void aSecondStackStartsReusesAndStopsLeavingNoProcess() {
    Path home = Path.of("target", "second-stack").toAbsolutePath();
    // Next to the shared stack's ports (clear of their +1..+3 and +100 neighbours), so that runs
    // on other port offsets at the same time do not collide.
    StackSettings shared = LocalStackExtension.stack().settings();
    Properties p = new Properties();
    p.putAll(shared.besideAt(home, 50));
    LocalStack second = new LocalStack(settings(p));
    try {
      second.up();
      assertThat(second.startedHere()).hasSameSizeAs(second.services());
      assertThat(processesUnder(home)).isNotEmpty();

      LocalStack secondAgain = new LocalStack(settings(p));
      secondAgain.up();
      assertThat(secondAgain.startedHere()).isEmpty();
    } finally {
      second.down();
    }
    assertThat(second.services()).noneMatch(LocalService::isUp);
    assertThat(processesUnder(home)).isEmpty();
  }

  private static StackSettings settings(Properties overrides) {
    Properties all = new Properties();
    all.putAll(System.getProperties());
    all.putAll(overrides);
    Properties saved = System.getProperties();
    try {
      System.setProperties(all);
      return StackSettings.fromEnvironment();
    } finally {
      System.setProperties(saved);
    }
  }

  private static List<String> processesUnder(Path home) {
    return ProcessHandle.allProcesses()
        .filter(ProcessHandle::isAlive)
        .map(h -> h.info().commandLine().orElse(""))
        .filter(cmd -> cmd.contains(home.toString()))
        .toList();
  }

  private static Map<String, String> readEnvFile(Path file) throws Exception {
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith("export ")) {
        String assignment = line.substring("export ".length());
        int eq = assignment.indexOf('=');
        env.put(assignment.substring(0, eq), assignment.substring(eq + 1).replaceAll("^'|'$", ""));
      }
    }
    return env;
  }
}
