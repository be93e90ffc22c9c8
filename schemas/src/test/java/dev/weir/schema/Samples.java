package dev.weir.schema;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The sample documents under {@code schemas/samples/<family>/<v1|v2|…|invalid>/}. */
final class Samples {

  record Sample(EventSchema schema, String version, Path file) {
    byte[] bytes() {
      try {
        return Files.readAllBytes(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String toString() {
      return schema.family() + "/" + version + "/" + file.getFileName();
    }
  }

  static Path root() {
    try {
      return Path.of(Samples.class.getClassLoader().getResource("weir/schemas/samples").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Valid samples of every version, oldest first. */
  static List<Sample> valid() {
    return all().filter(s -> !s.version().equals("invalid")).collect(Collectors.toList());
  }

  static List<Sample> invalid() {
    return all().filter(s -> s.version().equals("invalid")).collect(Collectors.toList());
  }

  private static Stream<Sample> all() {
    return Stream.of(EventSchema.values())
        .flatMap(
            schema -> {
              Path dir = root().resolve(schema.family());
              try (Stream<Path> files = Files.walk(dir)) {
                return files
                    .filter(p -> p.toString().endsWith(".json"))
                    .sorted()
                    .map(p -> new Sample(schema, dir.relativize(p).getName(0).toString(), p))
                    .collect(Collectors.toList())
                    .stream();
              } catch (IOException e) {
                throw new UncheckedIOException(
                    "no samples for " + schema.family() + " in " + dir, e);
              }
            });
  }

  private Samples() {}
}
