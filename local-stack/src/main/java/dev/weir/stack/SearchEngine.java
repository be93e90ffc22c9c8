package dev.weir.stack;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The search engines the local stack can run on its search port, one at a time: each one's
 * integ-test zip on Maven Central, the Java it runs on, its launcher's variables and what it must
 * be told at start. Everything that differs between them lives here.
 */
public enum SearchEngine {
  ELASTICSEARCH8(
      "elasticsearch8",
      "Elasticsearch",
      "org.elasticsearch.distribution.integ-test-zip:elasticsearch",
      StackSettings.Versions::elasticsearch,
      "elasticsearch",
      17,
      Integer.MAX_VALUE,
      "ES",
      List.of("xpack.security.enabled=false")),
  ELASTICSEARCH9(
      "elasticsearch9",
      "Elasticsearch",
      "org.elasticsearch.distribution.integ-test-zip:elasticsearch",
      StackSettings.Versions::elasticsearch9,
      "elasticsearch9",
      21,
      Integer.MAX_VALUE,
      "ES",
      List.of("xpack.security.enabled=false")),
  /**
   * The integ-test zip has no plugins (no security plugin, so no {@code plugins.security.*}: the
   * node would refuse them as unknown settings) and needs the Java security manager, which Java 24
   * removed.
   */
  OPENSEARCH2(
      "opensearch2",
      "OpenSearch",
      "org.opensearch.distribution.integ-test-zip:opensearch",
      StackSettings.Versions::opensearch,
      "opensearch2",
      11,
      23,
      "OPENSEARCH",
      List.of());

  /** The one the stack runs unless told otherwise. */
  public static final SearchEngine DEFAULT = ELASTICSEARCH8;

  private final String key;
  private final String product;
  private final String artifact;
  private final Function<StackSettings.Versions, String> version;
  private final String folder;
  private final int minimumJava;
  private final int maximumJava;
  private final String variablePrefix;
  private final List<String> settings;

  SearchEngine(
      String key,
      String product,
      String artifact,
      Function<StackSettings.Versions, String> version,
      String folder,
      int minimumJava,
      int maximumJava,
      String variablePrefix,
      List<String> settings) {
    this.key = key;
    this.product = product;
    this.artifact = artifact;
    this.version = version;
    this.folder = folder;
    this.minimumJava = minimumJava;
    this.maximumJava = maximumJava;
    this.variablePrefix = variablePrefix;
    this.settings = settings;
  }

  /** The engine a {@code --search} value or {@code WEIR_SEARCH} names, e.g. "opensearch2". */
  public static SearchEngine of(String key) {
    return Arrays.stream(values())
        .filter(e -> e.key.equalsIgnoreCase(key.trim()))
        .findFirst()
        .orElseThrow(
            () -> new StackException("unknown search engine '" + key + "'; one of: " + keys(", ")));
  }

  /** Every engine's key, joined. */
  private static String keys(String separator) {
    return Arrays.stream(values()).map(SearchEngine::key).collect(Collectors.joining(separator));
  }

  /** What {@code --search}, {@code WEIR_SEARCH} and stack.env's {@code SEARCH_ENGINE} say. */
  public String key() {
    return key;
  }

  /** "Elasticsearch" or "OpenSearch". */
  public String product() {
    return product;
  }

  public boolean isElasticsearch() {
    return product.equals("Elasticsearch");
  }

  public String version(StackSettings.Versions versions) {
    return version.apply(versions);
  }

  /** The zip's coordinates, {@code group:artifact:zip:version}. */
  String coordinates(StackSettings.Versions versions) {
    return artifact + ":zip:" + version(versions);
  }

  /**
   * The engine's folder under the stack's home: each has its own data (a newer engine would upgrade
   * an older one's data in place, and OpenSearch cannot read Elasticsearch's).
   */
  String folder() {
    return folder;
  }

  boolean runsOn(int javaFeatureVersion) {
    return javaFeatureVersion >= minimumJava && javaFeatureVersion <= maximumJava;
  }

  /** "Java 21 or newer", "Java 11 to 23". */
  String javaRequirement() {
    return maximumJava == Integer.MAX_VALUE
        ? "Java " + minimumJava + " or newer"
        : "Java " + minimumJava + " to " + maximumJava;
  }

  /** The launcher's Java home variable: ES_JAVA_HOME, OPENSEARCH_JAVA_HOME. */
  String javaHomeVariable() {
    return variablePrefix + "_JAVA_HOME";
  }

  String javaOptionsVariable() {
    return variablePrefix + "_JAVA_OPTS";
  }

  String tmpDirVariable() {
    return variablePrefix + "_TMPDIR";
  }

  String configFolderVariable() {
    return variablePrefix + "_PATH_CONF";
  }

  /** The launcher script inside the distribution. */
  String launcher() {
    return "bin/" + product.toLowerCase();
  }

  /** Node settings ({@code -E key=value}) this engine needs beyond the common ones. */
  List<String> settings() {
    return settings;
  }
}
