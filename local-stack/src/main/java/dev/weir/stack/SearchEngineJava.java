package dev.weir.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The Java a search engine runs on (the integ-test zips bring none): the engine's own variable
 * ({@code ES_JAVA_HOME}, {@code OPENSEARCH_JAVA_HOME}) when set, else the JVM running weir when the
 * engine runs on it, else the newest fitting JDK in the system's JVM folder.
 */
final class SearchEngineJava {

  static final Path SYSTEM_JVM_FOLDER = Path.of("/usr/lib/jvm");

  private SearchEngineJava() {}

  static Path find(SearchEngine engine, StackSettings.Versions versions) {
    return find(
        engine,
        versions,
        System.getenv(),
        Path.of(System.getProperty("java.home")),
        SYSTEM_JVM_FOLDER);
  }

  static Path find(
      SearchEngine engine,
      StackSettings.Versions versions,
      Map<String, String> env,
      Path runningJava,
      Path jvmFolder) {
    String wanted = engine.product() + " " + engine.version(versions);
    String variable = env.get(engine.javaHomeVariable());
    if (variable != null && !variable.isBlank()) {
      Path home = Path.of(variable.trim());
      Optional<Integer> version = featureVersion(home);
      if (version.isEmpty() || !engine.runsOn(version.get())) {
        throw new StackException(
            wanted
                + " needs "
                + engine.javaRequirement()
                + ", but "
                + engine.javaHomeVariable()
                + "="
                + home
                + " is "
                + version.map(v -> "Java " + v).orElse("not a JDK (no release file or bin/java)"));
      }
      return home;
    }
    Optional<Integer> running = featureVersion(runningJava);
    if (running.isPresent() && engine.runsOn(running.get())) {
      return runningJava;
    }
    List<Path> found = new ArrayList<>();
    if (Files.isDirectory(jvmFolder)) {
      try (Stream<Path> homes = Files.list(jvmFolder)) {
        homes
            .filter(home -> featureVersion(home).filter(engine::runsOn).isPresent())
            .forEach(found::add);
      } catch (IOException e) {
        // An unreadable folder holds nothing we can use: the refusal below names it.
      }
    }
    return found.stream()
        .max(
            Comparator.comparing((Path home) -> featureVersion(home).orElse(0))
                .thenComparing(Path::toString))
        .orElseThrow(
            () ->
                new StackException(
                    wanted
                        + " needs "
                        + engine.javaRequirement()
                        + " and none was found: "
                        + engine.javaHomeVariable()
                        + " is not set, weir runs on "
                        + running.map(v -> "Java " + v).orElse("an unknown Java")
                        + " ("
                        + runningJava
                        + "), and "
                        + jvmFolder
                        + " has no JDK of that version (a folder with bin/java and a release"
                        + " file); install one there or set "
                        + engine.javaHomeVariable()));
  }

  /** The feature version (17, 21, 25) a JDK's release file names, if it has bin/java. */
  static Optional<Integer> featureVersion(Path home) {
    Path release = home.resolve("release");
    if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(release)) {
      p.load(in);
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
    String version = p.getProperty("JAVA_VERSION", "").replace("\"", "").trim();
    // "17.0.15", "25", or the old "1.8.0_412".
    String[] parts = version.split("[._+-]");
    try {
      int first = Integer.parseInt(parts[0]);
      return Optional.of(first == 1 && parts.length > 1 ? Integer.parseInt(parts[1]) : first);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
