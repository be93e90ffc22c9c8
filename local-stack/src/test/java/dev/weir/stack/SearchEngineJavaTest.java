package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which Java each search engine gets: its own variable, weir's JVM, or a JDK of the system's. */
class SearchEngineJavaTest {

  private static final StackSettings.Versions VERSIONS =
      new StackSettings.Versions(
          "3.9.2", "2", "8.19.21", "9.5.4", "2.19.6", "17.6.0", "1.20.3", "2", "42", "3.8.4");

  @TempDir Path jvms;

  @Test
  void elasticsearch9OnJava17FindsTheNewestJdkOfTheSystemFolder() throws IOException {
    Path running = jdk("java-17-openjdk-amd64", "17.0.15");
    jdk("temurin-21-jdk", "21.0.8");
    Path newest = jdk("temurin-25-jdk-amd64", "25.0.3");
    Files.createDirectories(jvms.resolve("openjdk-17")); // no release file: not a JDK

    assertThat(find(SearchEngine.ELASTICSEARCH9, Map.of(), running)).isEqualTo(newest);
  }

  @Test
  void weirsOwnJavaIsUsedWhenTheEngineRunsOnIt() throws IOException {
    Path running = jdk("java-17-openjdk-amd64", "17.0.15");
    jdk("temurin-25-jdk-amd64", "25.0.3");

    assertThat(find(SearchEngine.ELASTICSEARCH8, Map.of(), running)).isEqualTo(running);
    assertThat(find(SearchEngine.OPENSEARCH2, Map.of(), running)).isEqualTo(running);
  }

  @Test
  void openSearchOnJava25FallsBackToAJdkWithTheSecurityManager() throws IOException {
    Path running = jdk("temurin-25-jdk-amd64", "25.0.3");
    Path seventeen = jdk("java-17-openjdk-amd64", "17.0.15");

    assertThat(find(SearchEngine.OPENSEARCH2, Map.of(), running)).isEqualTo(seventeen);
  }

  @Test
  void theEnginesOwnVariableWinsAndAJdkTooOldForItIsRefused() throws IOException {
    Path running = jdk("java-17-openjdk-amd64", "17.0.15");
    Path chosen = jdk("somewhere-21", "21.0.8");
    jdk("temurin-25-jdk-amd64", "25.0.3");

    assertThat(
            find(SearchEngine.ELASTICSEARCH9, Map.of("ES_JAVA_HOME", chosen.toString()), running))
        .isEqualTo(chosen);
    assertThatThrownBy(
            () ->
                find(
                    SearchEngine.ELASTICSEARCH9,
                    Map.of("ES_JAVA_HOME", running.toString()),
                    running))
        .isInstanceOf(StackException.class)
        .hasMessageContaining("Elasticsearch 9.5.4 needs Java 21 or newer")
        .hasMessageContaining("ES_JAVA_HOME=" + running + " is Java 17");
  }

  @Test
  void noFittingJdkIsRefusedNamingWhatWasLookedFor() throws IOException {
    Path running = jdk("java-17-openjdk-amd64", "17.0.15");

    assertThatThrownBy(() -> find(SearchEngine.ELASTICSEARCH9, Map.of(), running))
        .isInstanceOf(StackException.class)
        .hasMessageContaining("Elasticsearch 9.5.4 needs Java 21 or newer and none was found")
        .hasMessageContaining("ES_JAVA_HOME is not set")
        .hasMessageContaining("weir runs on Java 17")
        .hasMessageContaining(jvms + " has no JDK of that version");
  }

  @Test
  void releaseFilesOfEveryShapeGiveTheFeatureVersion() throws IOException {
    assertThat(SearchEngineJava.featureVersion(jdk("a", "17.0.15"))).contains(17);
    assertThat(SearchEngineJava.featureVersion(jdk("b", "25"))).contains(25);
    assertThat(SearchEngineJava.featureVersion(jdk("c", "1.8.0_412"))).contains(8);
    assertThat(SearchEngineJava.featureVersion(jvms.resolve("none"))).isEmpty();
  }

  @Test
  void enginesAreNamedByTheirKeyAndAnUnknownOneListsTheKnown() {
    assertThat(SearchEngine.of(" OpenSearch2 ")).isEqualTo(SearchEngine.OPENSEARCH2);
    assertThatThrownBy(() -> SearchEngine.of("solr"))
        .isInstanceOf(StackException.class)
        .hasMessageContaining("elasticsearch8, elasticsearch9, opensearch2");
  }

  private Path find(SearchEngine engine, Map<String, String> env, Path running) {
    return SearchEngineJava.find(engine, VERSIONS, env, running, jvms);
  }

  private Path jdk(String name, String version) throws IOException {
    Path home = Files.createDirectories(jvms.resolve(name));
    Files.writeString(
        home.resolve("release"), "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"" + version + "\"\n");
    Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
    Files.writeString(java, "#!/bin/sh\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    return home;
  }
}
