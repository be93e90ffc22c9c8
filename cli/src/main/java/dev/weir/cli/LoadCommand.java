package dev.weir.cli;

import dev.weir.cli.load.CatalogLoader;
import dev.weir.cli.load.GithubLoader;
import dev.weir.common.config.WeirConfig;
import dev.weir.documents.DocumentOptions;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    description = "Produce sample or real data: to weir's topics, and the upstream catalog.")
final class LoadCommand {

  @Spec CommandSpec spec;

  /** What a load did. */
  record Loaded(long produced, long skipped) {}

  @Command(
      name = "github",
      mixinStandardHelpOptions = true,
      description =
          "Map GH Archive events (one JSON object a line) onto activity.events, in file order.")
  int github(
      @Parameters(
              paramLabel = "FILE",
              arity = "0..1",
              description =
                  "GH Archive .ndjson file; default: the bundled 2021-07-21 sample (369 events).")
          Path file,
      @Option(
              names = "--topic",
              defaultValue = "activity.events",
              description = "Target topic (default: ${DEFAULT-VALUE}).")
          String topic)
      throws IOException {
    Loaded loaded =
        loadGithub(
            WeirConfig.from(Map.of(), System.getenv()), file, topic, spec.commandLine().getErr());
    spec.commandLine()
        .getOut()
        .printf(
            "produced %d activity events to %s (%d line(s) skipped)%n",
            loaded.produced(), topic, loaded.skipped());
    return 0;
  }

  @Command(
      name = "catalog",
      mixinStandardHelpOptions = true,
      description = {
        "The upstream catalog for search-index: creates the database on the local stack and its tables"
            + " (product, brand, category), fills an empty catalog with products whose descriptions"
            + " are several kB (TOASTed) and a price each on the pricing topic, then applies a stream"
            + " of realistic changes: renames, description edits, attribute changes, deletes, brand"
            + " renames, category moves and price changes.",
        "Capture it with `weir run cdc-catalog`, index it with `weir run search-index`."
      })
  int catalog(
      @Option(
              names = "--database",
              defaultValue = Connections.CATALOG_DATABASE,
              description = "Database on the local stack's PostgreSQL (default: ${DEFAULT-VALUE}).")
          String database,
      @Option(
              names = "--products",
              defaultValue = "2000",
              description = "Products to fill an empty catalog with (default: ${DEFAULT-VALUE}).")
          int products,
      @Option(
              names = "--brands",
              defaultValue = "40",
              description = "Brands (default: ${DEFAULT-VALUE}).")
          int brands,
      @Option(
              names = "--changes",
              defaultValue = "0",
              description = "Changes to apply after filling (default: ${DEFAULT-VALUE}).")
          int changes,
      @Option(
              names = "--pause",
              defaultValue = "0ms",
              converter = DurationConverter.class,
              description = "Pause between changes, e.g. 200ms (default: ${DEFAULT-VALUE}).")
          Duration pause,
      @Option(
              names = "--description-chars",
              defaultValue = "6000",
              description =
                  "Characters of each product's description (default: ${DEFAULT-VALUE}: TOASTed).")
          int descriptionChars,
      @Option(
              names = "--seed",
              defaultValue = "42",
              description =
                  "Random seed; the same seed fills the same catalog (default: ${DEFAULT-VALUE}).")
          long seed)
      throws Exception {
    LocalStack stack = LocalStack.fromEnvironment();
    stack.ensurePostgresDatabase(database);
    WeirConfig config = WeirConfig.from(Map.of(), stack.connections().environment());
    String url = stack.connections().postgresJdbcUrl(database);
    String pricing = config.get(DocumentOptions.PRICING_TOPIC);
    CatalogLoader.Result result =
        new CatalogLoader(seed, descriptionChars)
            .load(config, url, pricing, products, brands, changes, pause);
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        result.filled() > 0
            ? "catalog %s: filled %d products and %d brands%n"
            : "catalog %s: already filled, left as it was%n",
        url,
        result.filled(),
        brands);
    out.printf("sent %d price event(s) to %s%n", result.prices(), pricing);
    result.changes().forEach((kind, n) -> out.printf("applied %d x %s%n", n, kind));
    return 0;
  }

  static Loaded loadGithub(WeirConfig config, Path file, String topic, PrintWriter err)
      throws IOException {
    GithubLoader.Result result = GithubLoader.load(config, file, topic, err);
    return new Loaded(result.produced(), result.skipped());
  }
}
