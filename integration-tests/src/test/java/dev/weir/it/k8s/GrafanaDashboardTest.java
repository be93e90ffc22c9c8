package dev.weir.it.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.weir.common.metrics.WeirMetrics;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's model, without Prometheus: what Grafana needs to import it anywhere, and the
 * jobs' shared metrics on it. {@code ClusterFailoverITCase} checks that a running cluster exports
 * every metric it queries.
 */
class GrafanaDashboardTest {

  private static final String OPERATOR = "flink_taskmanager_job_task_operator_";
  private static GrafanaDashboard dashboard;

  @BeforeAll
  static void load() throws Exception {
    dashboard = GrafanaDashboard.load();
  }

  @Test
  void thePrometheusDataSourceIsAVariableEveryPanelAndQueryUses() {
    JsonNode model = dashboard.model();
    assertThat(model.path("title").asText()).isNotBlank();
    assertThat(model.path("uid").asText()).isNotBlank();
    assertThat(model.path("schemaVersion").asInt()).isPositive();
    List<JsonNode> variables = new ArrayList<>();
    model.path("templating").path("list").forEach(variables::add);
    assertThat(variables)
        .anySatisfy(
            v -> {
              assertThat(v.path("name").asText()).isEqualTo("datasource");
              assertThat(v.path("type").asText()).isEqualTo("datasource");
              assertThat(v.path("query").asText()).isEqualTo("prometheus");
            });
    List<String> problems = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : model.path("panels")) {
      String title = panel.path("title").asText();
      if (!ids.add(panel.path("id").asInt())) {
        problems.add(title + ": id " + panel.path("id") + " used twice");
      }
      if (!panel.path("gridPos").has("w") || !panel.path("gridPos").has("h")) {
        problems.add(title + ": no gridPos");
      }
      if (!panel.path("datasource").path("uid").asText().equals("${datasource}")) {
        problems.add(title + ": not on the ${datasource} variable");
      }
      if (panel.path("targets").isEmpty()) {
        problems.add(title + ": no query");
      }
      for (JsonNode target : panel.path("targets")) {
        if (target.path("expr").asText().isBlank()) {
          problems.add(title + " " + target.path("refId").asText() + ": empty query");
        }
        if (!target.path("datasource").path("uid").asText().equals("${datasource}")) {
          problems.add(title + " " + target.path("refId").asText() + ": not on ${datasource}");
        }
      }
    }
    assertThat(model.path("panels").size()).isGreaterThanOrEqualTo(9);
    assertThat(problems).isEmpty();
  }

  @Test
  void everyQuerySelectsFlinkReporterMetricsOnly() {
    assertThat(dashboard.metricsByPanel())
        .allSatisfy(
            (panel, metrics) ->
                assertThat(metrics)
                    .as(panel)
                    .isNotEmpty()
                    .allSatisfy(m -> assertThat(m).startsWith("flink_")));
  }

  /**
   * Each shared metric (WeirMetrics) is on the dashboard, under the name the reporter gives it: an
   * operator's, or for one registered by a Kafka record serializer, in the "user" group Flink gives
   * a serializer (cdc-catalog's weirTruncates). Which of the two is checked against the running
   * jobs by ClusterFailoverITCase.
   */
  @Test
  void everySharedMetricOfTheJobsIsOnTheDashboard() throws IllegalAccessException {
    List<String> shared = new ArrayList<>();
    for (Field f : WeirMetrics.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        shared.add((String) f.get(null));
      }
    }
    assertThat(shared).hasSizeGreaterThanOrEqualTo(7);
    assertThat(shared)
        .allSatisfy(
            name ->
                assertThat(dashboard.metrics())
                    .containsAnyOf(OPERATOR + name, OPERATOR + "user_" + name));
  }

  /**
   * The alert rules (k8s/grafana/weir-alerts.yaml) watch what the dashboard charts, so that every
   * metric they query is one ClusterFailoverITCase sees the running jobs export.
   */
  @Test
  void theAlertRulesQueryMetricsTheDashboardCharts() throws Exception {
    JsonNode rules =
        new ObjectMapper(new YAMLFactory())
            .readTree(GrafanaDashboard.FILE.resolveSibling("weir-alerts.yaml").toFile());
    List<String> queried = new ArrayList<>();
    for (JsonNode group : rules.path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        assertThat(rule.path("uid").asText()).as("a rule's uid").isNotBlank();
        for (JsonNode data : rule.path("data")) {
          if (data.path("datasourceUid").asText().equals("prometheus")) {
            queried.addAll(GrafanaDashboard.metricNames(data.path("model").path("expr").asText()));
          }
        }
      }
    }
    assertThat(queried)
        .contains(
            OPERATOR + WeirMetrics.SLOT_LAG_SECONDS, OPERATOR + WeirMetrics.SLOT_RETAINED_WAL_BYTES)
        .allSatisfy(metric -> assertThat(dashboard.metrics()).contains(metric));
  }

  @Test
  void metricNamesAreReadFromPromQl() {
    assertThat(
            GrafanaDashboard.metricNames(
                "sum by (job_name) (rate(a_total{job_name=~\"$job\",x=\"y z\"}[$__rate_interval]))"
                    + " / ignoring(le) b offset 5m > 0.5 and on(job_id) c"))
        .containsExactly("a_total", "b", "c");
  }
}
