package dev.weir.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;

/**
 * The document definitions bundled in weir/schemas/documents/ (library.json, products.json and the
 * library's SQL), as the demo and the benchmarks use them: with an index and a pricing topic of
 * their own.
 */
public final class BundledDocuments {

  private BundledDocuments() {}

  /** A bundled file's text. */
  public static String read(String name) throws IOException {
    try (InputStream in =
        BundledDocuments.class.getResourceAsStream("/weir/schemas/documents/" + name)) {
      if (in == null) {
        throw new IOException("weir/schemas/documents/" + name + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * The bundled definition {@code name} written to {@code file}, read in {@code database}, its
   * document's index renamed to {@code index} and, unless null, its pricing topic to {@code
   * pricingTopic}.
   */
  public static Path write(
      Path file, String name, String database, String index, String pricingTopic)
      throws IOException {
    String definition =
        read(name)
            .replaceFirst(
                "\"database\": \"[^\"]*\"",
                Matcher.quoteReplacement("\"database\": \"" + database + "\""))
            .replaceFirst(
                "\"index\": \"[^\"]*\"", Matcher.quoteReplacement("\"index\": \"" + index + "\""));
    if (pricingTopic != null) {
      definition =
          definition.replace(
              "\"topic\": \"pricing.events\"", "\"topic\": \"" + pricingTopic + "\"");
    }
    Files.createDirectories(file.getParent());
    Files.writeString(file, definition);
    return file;
  }
}
