package dev.weir.it.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * k8s/grafana/weir-dashboard.json read as Grafana reads it: its panels, their PromQL queries, and
 * the metric names those queries (and the dashboard's variables) select.
 */
public final class GrafanaDashboard {

  public static final Path FILE = Path.of("..", "k8s", "grafana", "weir-dashboard.json");

  private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
  private static final Pattern MATCHERS_AND_RANGES = Pattern.compile("\\{[^}]*}|\\[[^]]*]");

  /** Clauses whose parentheses hold label names, not expressions. */
  private static final Pattern LABEL_LISTS =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,");

  private final JsonNode model;

  private GrafanaDashboard(JsonNode model) {
    this.model = model;
  }

  public static GrafanaDashboard load() throws IOException {
    return new GrafanaDashboard(new ObjectMapper().readTree(FILE.toFile()));
  }

  public JsonNode model() {
    return model;
  }

  /** Each panel's title and its queries. */
  public Map<String, List<String>> queriesByPanel() {
    Map<String, List<String>> queries = new LinkedHashMap<>();
    for (JsonNode panel : model.path("panels")) {
      List<String> exprs = new ArrayList<>();
      panel.path("targets").forEach(t -> exprs.add(t.path("expr").asText()));
      queries.put(panel.path("title").asText(), exprs);
    }
    return queries;
  }

  /** The metric names each panel selects, by title; "variable $name" for the variables' queries. */
  public Map<String, Set<String>> metricsByPanel() {
    Map<String, Set<String>> metrics = new LinkedHashMap<>();
    queriesByPanel()
        .forEach(
            (title, exprs) -> {
              Set<String> names = new LinkedHashSet<>();
              exprs.forEach(e -> names.addAll(metricNames(e)));
              metrics.put(title, names);
            });
    for (JsonNode variable : model.path("templating").path("list")) {
      if (variable.path("type").asText().equals("query")) {
        Matcher m = LABEL_VALUES.matcher(variable.path("definition").asText());
        Set<String> names = new LinkedHashSet<>();
        while (m.find()) {
          names.add(m.group(1));
        }
        metrics.put("variable $" + variable.path("name").asText(), names);
      }
    }
    return metrics;
  }

  /** Every metric name the dashboard selects. */
  public Set<String> metrics() {
    Set<String> all = new LinkedHashSet<>();
    metricsByPanel().values().forEach(all::addAll);
    return all;
  }

  /**
   * The metric names a PromQL expression selects: its identifiers once strings, label matchers,
   * ranges and label lists are gone, less functions (followed by a parenthesis) and keywords.
   */
  static Set<String> metricNames(String expr) {
    String bare = STRING.matcher(expr).replaceAll(" ");
    bare = MATCHERS_AND_RANGES.matcher(bare).replaceAll(" ");
    bare = LABEL_LISTS.matcher(bare).replaceAll(" ");
    Set<String> names = new LinkedHashSet<>();
    Matcher m = IDENTIFIER.matcher(bare);
    while (m.find()) {
      String rest = bare.substring(m.end()).stripLeading();
      boolean function = rest.startsWith("(");
      boolean number = m.start() > 0 && Character.isDigit(bare.charAt(m.start() - 1));
      if (!function && !number && !KEYWORDS.contains(m.group())) {
        names.add(m.group());
      }
    }
    return names;
  }
}
