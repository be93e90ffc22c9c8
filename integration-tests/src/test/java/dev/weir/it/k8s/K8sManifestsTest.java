package dev.weir.it.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.job.JobRunner;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.stack.FlinkCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * k8s/: the base and every overlay, rendered as Kustomize renders them, and each resource checked
 * against the operator's model, the built jar ({@code jobs/dist}) and the deployment rules.
 */
class K8sManifestsTest {

  private static final Path K8S = Path.of("..", "k8s");
  private static DeploymentChecks.Jar jar;

  @BeforeAll
  static void theBuiltJar() throws IOException {
    Path built = FlinkCluster.jobsJar(Path.of(".."));
    try (ZipFile zip = new ZipFile(built.toFile())) {
      Set<String> entries = zip.stream().map(e -> e.getName()).collect(Collectors.toSet());
      jar =
          new DeploymentChecks.Jar(
              "local:///opt/flink/usrlib/weir-jobs.jar", entries, JobRunner.jobs().keySet());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/staging", "overlays/production", "overlays/declared"})
  void everyResourceParsesAndFollowsTheDeploymentRules(String dir) throws IOException {
    List<ObjectNode> resources = Kustomization.render(K8S.resolve(dir));

    assertThat(resources.stream().map(Kustomization::name))
        .contains(
            "ConfigMap/weir-config",
            "FlinkDeployment/weir-activity-feed",
            "FlinkDeployment/weir-identity",
            "FlinkDeployment/weir-search-index",
            "FlinkDeployment/weir-cdc-catalog",
            "FlinkDeployment/weir-backfill");
    List<String> problems = new ArrayList<>();
    resources.forEach(r -> problems.addAll(DeploymentChecks.problems(r, jar)));
    assertThat(problems).isEmpty();
  }

  @Test
  void environmentsKeepTheirStateApartAndDifferInSize() throws IOException {
    var staging = Kustomization.render(K8S.resolve("overlays/staging"));
    var production = Kustomization.render(K8S.resolve("overlays/production"));

    ObjectNode feedStaging = find(staging, "FlinkDeployment/weir-activity-feed");
    ObjectNode feedProduction = find(production, "FlinkDeployment/weir-activity-feed");
    assertThat(feedStaging.at("/metadata/namespace").asText()).isEqualTo("weir-staging");
    assertThat(feedProduction.at("/metadata/namespace").asText()).isEqualTo("weir");
    for (String key :
        List.of(
            "high-availability.storageDir",
            "execution.checkpointing.dir",
            "execution.checkpointing.savepoint-dir")) {
      String pointer = "/spec/flinkConfiguration/" + key.replace("/", "~1");
      assertThat(feedStaging.at(pointer).asText())
          .as(key)
          .startsWith("s3://weir-flink/staging/activity-feed/");
      assertThat(feedProduction.at(pointer).asText())
          .as(key)
          .startsWith("s3://weir-flink/production/activity-feed/");
    }
    assertThat(feedStaging.at("/spec/job/parallelism").asInt()).isEqualTo(1);
    // Production's sizes are docs/scaling.md's.
    assertThat(feedProduction.at("/spec/job/parallelism").asInt()).isEqualTo(16);
    assertThat(feedProduction.at("/spec/job/args").toString())
        .isEqualTo("[\"--job\",\"activity-feed\",\"--feed.archive-after\",\"2 d\"]");
    assertThat(
            find(production, "FlinkDeployment/weir-identity").at("/spec/job/parallelism").asInt())
        .isEqualTo(5);
    assertThat(feedProduction.at("/spec/jobManager/replicas").asInt()).isEqualTo(2);
    // The patch replaced only what it names: the Secret references are still there.
    assertThat(
            feedProduction
                .at("/spec/podTemplate/spec/containers/0/env/0/valueFrom/secretKeyRef/name")
                .asText())
        .isEqualTo("weir-credentials");
    assertThat(
            find(production, "FlinkDeployment/weir-backfill")
                .at("/spec/jobManager/replicas")
                .asInt())
        .isEqualTo(1);
    // The indices search-index and the backfill create have a replica of every shard there.
    for (String job : List.of("weir-search-index", "weir-backfill")) {
      String args = find(production, "FlinkDeployment/" + job).at("/spec/job/args").toString();
      assertThat(args).as(job).contains("\"--search.index.replicas\",\"1\"");
      assertThat(find(staging, "FlinkDeployment/" + job).at("/spec/job/args").toString())
          .as(job)
          .doesNotContain("--search.index.replicas");
    }
    assertThat(find(production, "FlinkDeployment/weir-backfill").at("/spec/job/args").toString())
        .contains("\"--backfill.target\",\"products-v2\"");
  }

  /**
   * Declared documents: the capture, the indexer and the backfill read the definition from the
   * ConfigMap mounted where their argument says, and the ConfigMap holds a definition weir reads.
   */
  @Test
  void theDeclaredOverlayMountsTheDefinitionForTheCaptureTheIndexerAndTheBackfill()
      throws IOException {
    var declared = Kustomization.render(K8S.resolve("overlays/declared"));
    String definition =
        find(declared, "ConfigMap/weir-documents").at("/data/documents.json").asText();
    assertThat(DefinitionFile.parse(definition))
        .extracting(DocumentSpec::index)
        .containsExactly("books");
    for (String job : List.of("search-index", "cdc-catalog", "backfill")) {
      ObjectNode deployment = find(declared, "FlinkDeployment/weir-" + job);
      List<String> args = new ArrayList<>();
      deployment.at("/spec/job/args").forEach(a -> args.add(a.asText()));
      String file = args.get(args.indexOf("--search.documents") + 1);
      String mountPath = "";
      for (var mount : deployment.at("/spec/podTemplate/spec/containers/0/volumeMounts")) {
        if (mount.path("name").asText().equals("documents")) {
          mountPath = mount.path("mountPath").asText();
        }
      }
      assertThat(file).as(job).startsWith(mountPath + "/");
      List<String> configMaps = new ArrayList<>();
      deployment
          .at("/spec/podTemplate/spec/volumes")
          .forEach(v -> configMaps.add(v.at("/configMap/name").asText()));
      assertThat(configMaps).contains("weir-documents");
      if (job.equals("backfill")) {
        assertThat(deployment.at("/spec/job/entryClass").asText())
            .isEqualTo("dev.weir.backfill.Backfill");
        assertThat(args).as(job).contains("--backfill.target", "books-v2");
      } else {
        assertThat(args).as(job).contains("--job", job);
      }
    }
  }

  @Test
  void connectionsInTheClearAreCaught() throws IOException {
    assertThat(problems("plaintext.yaml"))
        .anySatisfy(p -> assertThat(p).contains("KAFKA_SECURITY_PROTOCOL PLAINTEXT"))
        .anySatisfy(p -> assertThat(p).contains("http://elasticsearch:9200 is plaintext HTTP"))
        .anySatisfy(p -> assertThat(p).contains("add sslmode=verify-full"))
        .anySatisfy(p -> assertThat(p).contains("no KAFKA_SSL_CA_FILE"))
        .anySatisfy(p -> assertThat(p).contains("POSTGRES_JDBC_URL has no sslrootcert"));
  }

  private static final Pattern CA_FILE = Pattern.compile("/[^&\\s]+\\.crt");

  /** Every CA file the settings name is in a volume every deployment mounts. */
  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/staging", "overlays/production", "overlays/declared"})
  void everyDeploymentMountsTheCaFilesItsSettingsName(String dir) throws IOException {
    List<ObjectNode> resources = Kustomization.render(K8S.resolve(dir));
    List<String> caFiles = new ArrayList<>();
    find(resources, "ConfigMap/weir-config")
        .path("data")
        .forEach(
            value -> {
              var ca = CA_FILE.matcher(value.asText());
              while (ca.find()) {
                caFiles.add(ca.group());
              }
            });
    assertThat(caFiles).hasSizeGreaterThanOrEqualTo(3);
    for (ObjectNode r : resources) {
      if (!Kustomization.name(r).startsWith("FlinkDeployment/")) {
        continue;
      }
      List<String> mounts = new ArrayList<>();
      r.at("/spec/podTemplate/spec/containers/0/volumeMounts")
          .forEach(m -> mounts.add(m.path("mountPath").asText() + "/"));
      List<String> named = new ArrayList<>(caFiles);
      r.at("/spec/job/args")
          .forEach(
              a -> {
                var ca = CA_FILE.matcher(a.asText());
                while (ca.find()) {
                  named.add(ca.group());
                }
              });
      for (String file : named) {
        assertThat(mounts)
            .as("%s mounts %s", Kustomization.name(r), file)
            .anyMatch(file::startsWith);
      }
    }
  }

  @Test
  void metricsNobodyCollectsAreCaught() throws IOException {
    assertThat(problems("unscraped.yaml"))
        .containsExactlyInAnyOrder(
            "FlinkDeployment/weir-no-reporter: no Prometheus metrics reporter",
            "FlinkDeployment/weir-reporter-elsewhere: the container declares no port named metrics"
                + " = 9250",
            "FlinkDeployment/weir-reporter-elsewhere: pods are not annotated prometheus.io/scrape"
                + " \"true\", prometheus.io/port 9250",
            "FlinkDeployment/weir-not-annotated: pods are not annotated prometheus.io/scrape"
                + " \"true\", prometheus.io/port 9249");
  }

  @Test
  void anInlinePasswordIsCaught() throws IOException {
    assertThat(problems("inline-password.yaml"))
        .anySatisfy(p -> assertThat(p).contains("PGPASSWORD is written inline"))
        .anySatisfy(p -> assertThat(p).contains("s3.secret-key is written inline"))
        .anySatisfy(p -> assertThat(p).contains("a Secret in the manifests"));
  }

  @Test
  void aMissingEntryClassOrJobIsCaught() throws IOException {
    assertThat(problems("missing-class.yaml"))
        .anySatisfy(p -> assertThat(p).contains("entry class dev.weir.NoSuchJob is not in the jar"))
        .anySatisfy(p -> assertThat(p).contains("--job must name one of"));
  }

  @Test
  void lostStateOnUpgradeOrLocalCheckpointsOrNoHaOrNoSparePodAreCaught() throws IOException {
    assertThat(problems("fragile.yaml"))
        .anySatisfy(p -> assertThat(p).contains("upgradeMode STATELESS, must be savepoint"))
        .anySatisfy(p -> assertThat(p).contains("high-availability.type must be kubernetes"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("execution.checkpointing.dir = file:///tmp/ck is not durable"))
        .anySatisfy(p -> assertThat(p).contains("must run as a non-root user"))
        .anySatisfy(
            p -> assertThat(p).contains("slotmanager.redundant-taskmanager-num must be at least 1"))
        .anySatisfy(
            p -> assertThat(p).contains("does not fit the operator's FlinkDeployment model"));
  }

  private static List<String> problems(String fixture) throws IOException {
    List<String> problems = new ArrayList<>();
    for (ObjectNode r :
        Kustomization.documents(Path.of("src", "test", "resources", "k8s-bad", fixture))) {
      problems.addAll(DeploymentChecks.problems(r, jar));
    }
    return problems;
  }

  private static ObjectNode find(List<ObjectNode> resources, String name) {
    return resources.stream()
        .filter(r -> Kustomization.name(r).equals(name))
        .findFirst()
        .orElseThrow();
  }
}
