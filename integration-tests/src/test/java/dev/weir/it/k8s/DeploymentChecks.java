package dev.weir.it.k8s;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.Resource;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;

/**
 * What every rendered manifest of k8s/ must satisfy, as a list of problems (empty: fine). A
 * FlinkDeployment is loaded into the Flink Kubernetes Operator's own model, strictly (an unknown
 * field is a problem: the operator would ignore it).
 */
final class DeploymentChecks {

  private static final ObjectMapper STRICT =
      new ObjectMapper(new YAMLFactory())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  /** Object storage a checkpoint or HA file survives a lost node or cluster in. */
  private static final Pattern DURABLE =
      Pattern.compile("^(s3|s3a|s3p|gs|abfs|abfss|wasbs|oss|hdfs)://.+");

  private static final Pattern CREDENTIAL =
      Pattern.compile("(?i).*(password|passwd|secret|token|api[-_.]?key|access[-_.]?key).*");

  /** Where the deployable jar is; its entries; the jobs it runs by name. */
  record Jar(String uri, Set<String> entries, Set<String> jobNames) {}

  private DeploymentChecks() {}

  static List<String> problems(JsonNode resource, Jar jar) {
    List<String> problems = new ArrayList<>();
    String name = Kustomization.name(resource);
    inlineCredentials(resource, name, problems);
    plaintext(resource, name, problems);
    if (name.equals("ConfigMap/weir-config")) {
      serviceConnections(resource.path("data"), name, problems);
    }
    if (resource.path("kind").asText().equals("Secret")) {
      problems.add(
          name + ": a Secret in the manifests; credentials are created outside the repository");
    }
    if (resource.path("kind").asText().equals("FlinkDeployment")) {
      flinkDeployment(resource, name, jar, problems);
    }
    return problems;
  }

  private static void flinkDeployment(
      JsonNode resource, String name, Jar jar, List<String> problems) {
    FlinkDeployment d;
    try {
      d = STRICT.treeToValue(resource, FlinkDeployment.class);
    } catch (Exception e) {
      problems.add(name + ": does not fit the operator's FlinkDeployment model: " + e.getMessage());
      return;
    }
    unknownFields(resource, STRICT.valueToTree(d), "", name, problems);
    var spec = d.getSpec();
    boolean bounded =
        "true"
            .equals(
                d.getMetadata().getLabels() == null
                    ? null
                    : d.getMetadata().getLabels().get("weir.dev/bounded"));
    Map<String, String> conf =
        spec.getFlinkConfiguration() == null ? Map.of() : spec.getFlinkConfiguration();
    JobSpec job = spec.getJob();
    if (job == null) {
      problems.add(name + ": no job (application mode runs one)");
    } else {
      if (!jar.uri().equals(job.getJarURI())) {
        problems.add(name + ": jarURI " + job.getJarURI() + " is not the image's jar " + jar.uri());
      }
      String entry = job.getEntryClass();
      if (entry == null || !jar.entries().contains(entry.replace('.', '/') + ".class")) {
        problems.add(name + ": entry class " + entry + " is not in the jar");
      }
      List<String> args = job.getArgs() == null ? List.of() : List.of(job.getArgs());
      int j = args.indexOf("--job");
      if ("dev.weir.common.job.JobRunner".equals(entry)
          && (j < 0 || j + 1 >= args.size() || !jar.jobNames().contains(args.get(j + 1)))) {
        problems.add(name + ": --job must name one of " + jar.jobNames() + ", args " + args);
      }
      if (!bounded && job.getUpgradeMode() != UpgradeMode.SAVEPOINT) {
        problems.add(name + ": upgradeMode " + job.getUpgradeMode() + ", must be savepoint");
      }
    }
    boolean ha = "kubernetes".equalsIgnoreCase(conf.get("high-availability.type"));
    if (!bounded && !ha) {
      problems.add(name + ": high-availability.type must be kubernetes");
    }
    if (ha) {
      durable(conf, "high-availability.storageDir", name, problems);
    }
    // Without a spare pod a lost TaskManager stops the job until a new pod is scheduled and up.
    if (!bounded && parseInt(conf.get("slotmanager.redundant-taskmanager-num")) < 1) {
      problems.add(name + ": slotmanager.redundant-taskmanager-num must be at least 1");
    }
    if (!ha && spec.getJobManager() != null && spec.getJobManager().getReplicas() > 1) {
      problems.add(name + ": a standby JobManager needs high availability");
    }
    durable(conf, "execution.checkpointing.dir", name, problems);
    durable(conf, "execution.checkpointing.savepoint-dir", name, problems);
    if (!"rocksdb".equals(conf.get("state.backend.type"))
        || !"true".equals(conf.get("execution.checkpointing.incremental"))) {
      problems.add(name + ": state must be RocksDB with incremental checkpoints");
    }
    prometheus(resource, conf, name, problems);
    resources(
        "jobManager",
        spec.getJobManager() == null ? null : spec.getJobManager().getResource(),
        name,
        problems);
    resources(
        "taskManager",
        spec.getTaskManager() == null ? null : spec.getTaskManager().getResource(),
        name,
        problems);
    var pod = spec.getPodTemplate() == null ? null : spec.getPodTemplate().getSpec();
    var sc = pod == null ? null : pod.getSecurityContext();
    if (sc == null
        || !Boolean.TRUE.equals(sc.getRunAsNonRoot())
        || sc.getRunAsUser() == null
        || sc.getRunAsUser() == 0) {
      problems.add(name + ": pods must run as a non-root user (runAsNonRoot, runAsUser != 0)");
    }
  }

  /**
   * Flink's Prometheus reporter, on a port the container declares (named metrics) and the pods'
   * scrape annotations name: else the jobs' metrics (k8s/grafana's dashboard) are never collected.
   */
  private static void prometheus(
      JsonNode resource, Map<String, String> conf, String name, List<String> problems) {
    String reporter =
        conf.entrySet().stream()
            .filter(
                e ->
                    e.getKey().matches("metrics\\.reporter\\.[^.]+\\.factory\\.class")
                        && e.getValue()
                            .equals(
                                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory"))
            .map(e -> e.getKey().split("\\.")[2])
            .findFirst()
            .orElse(null);
    if (reporter == null) {
      problems.add(name + ": no Prometheus metrics reporter");
      return;
    }
    String port = conf.getOrDefault("metrics.reporter." + reporter + ".port", "9249");
    JsonNode template = resource.at("/spec/podTemplate");
    boolean declared = false;
    for (JsonNode p : template.at("/spec/containers/0/ports")) {
      declared |=
          p.path("name").asText().equals("metrics")
              && p.path("containerPort").asText().equals(port);
    }
    if (!declared) {
      problems.add(name + ": the container declares no port named metrics = " + port);
    }
    JsonNode annotations = template.at("/metadata/annotations");
    if (!annotations.path("prometheus.io/scrape").asText().equals("true")
        || !annotations.path("prometheus.io/port").asText().equals(port)) {
      problems.add(
          name
              + ": pods are not annotated prometheus.io/scrape \"true\", prometheus.io/port "
              + port);
    }
  }

  /** Fields of the manifest that the model dropped: the operator would ignore them silently. */
  private static void unknownFields(
      JsonNode written, JsonNode modelled, String path, String name, List<String> problems) {
    if (!written.isObject()) {
      return;
    }
    written
        .fields()
        .forEachRemaining(
            f -> {
              if (!modelled.has(f.getKey())) {
                problems.add(
                    name
                        + ": does not fit the operator's FlinkDeployment model: unknown field "
                        + path
                        + f.getKey());
              } else {
                unknownFields(
                    f.getValue(),
                    modelled.get(f.getKey()),
                    path + f.getKey() + ".",
                    name,
                    problems);
              }
            });
  }

  private static void resources(String part, Resource r, String name, List<String> problems) {
    if (r == null || r.getCpu() == null || r.getMemory() == null) {
      problems.add(name + ": " + part + " needs cpu and memory (requests and limits)");
    }
  }

  private static void durable(
      Map<String, String> conf, String key, String name, List<String> problems) {
    String dir = conf.get(key);
    if (dir == null || !DURABLE.matcher(dir).matches()) {
      problems.add(name + ": " + key + " = " + dir + " is not durable object storage");
    }
  }

  /**
   * A credential written into a manifest: an env var or a configuration key named like one with a
   * literal value, or an argument that passes one. Files ({@code *-file}, {@code *_FILE}) and
   * secretKeyRefs are how they are given.
   */
  private static void inlineCredentials(JsonNode node, String name, List<String> problems) {
    if (node.isObject()) {
      if (node.has("name")
          && node.has("value")
          && CREDENTIAL.matcher(node.get("name").asText()).matches()) {
        problems.add(
            name + ": " + node.get("name").asText() + " is written inline; use a secretKeyRef");
      }
      node.fields()
          .forEachRemaining(
              f -> {
                String key = f.getKey();
                if (f.getValue().isValueNode()
                    && !f.getValue().asText().isEmpty()
                    && CREDENTIAL.matcher(key).matches()
                    && !key.toLowerCase().endsWith("file")
                    && !key.equals("secretKeyRef")
                    && !key.equals("secretName")) { // references, not values
                  problems.add(name + ": " + key + " is written inline");
                }
                inlineCredentials(f.getValue(), name, problems);
              });
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String v = node.get(i).asText();
        if (v.startsWith("--")
            && CREDENTIAL.matcher(v).matches()
            && !v.endsWith("file")
            && i + 1 < node.size()) {
          problems.add(name + ": argument " + v + " passes a credential inline");
        }
        inlineCredentials(node.get(i), name, problems);
      }
    }
  }

  /**
   * A connection in the clear anywhere in a manifest: an http:// URL, or a PostgreSQL URL that does
   * not verify the server's certificate and name (verify-full: require alone trusts any server).
   */
  private static void plaintext(JsonNode node, String name, List<String> problems) {
    if (node.isTextual()) {
      String v = node.asText();
      if (v.startsWith("http://")) {
        problems.add(name + ": " + v + " is plaintext HTTP; use https with a CA file");
      }
      if (v.startsWith("jdbc:postgresql:") && !v.contains("sslmode=verify-full")) {
        problems.add(name + ": " + v + " does not verify the server: add sslmode=verify-full");
      }
    }
    node.elements().forEachRemaining(child -> plaintext(child, name, problems));
  }

  /** The services' settings: TLS to each, checked against a CA. */
  private static void serviceConnections(JsonNode data, String name, List<String> problems) {
    String kafka = data.path("KAFKA_SECURITY_PROTOCOL").asText("PLAINTEXT");
    if (!Set.of("SSL", "SASL_SSL").contains(kafka)) {
      problems.add(name + ": KAFKA_SECURITY_PROTOCOL " + kafka + " is not SSL or SASL_SSL");
    }
    for (String required : List.of("KAFKA_SSL_CA_FILE", "ELASTICSEARCH_CA_FILE")) {
      if (data.path(required).asText().isEmpty()) {
        problems.add(name + ": no " + required + " to check the server's certificate against");
      }
    }
    if (!data.path("ELASTICSEARCH_URL").asText().startsWith("https://")) {
      problems.add(name + ": ELASTICSEARCH_URL must be https://");
    }
    if (!data.path("POSTGRES_JDBC_URL").asText().contains("sslrootcert=")) {
      problems.add(name + ": POSTGRES_JDBC_URL has no sslrootcert (the CA to verify against)");
    }
  }

  private static int parseInt(String value) {
    try {
      return value == null ? 0 : Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
