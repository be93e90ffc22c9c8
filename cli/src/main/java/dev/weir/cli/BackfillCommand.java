package dev.weir.cli;

import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillException;
import dev.weir.backfill.BackfillOptions;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DefinitionException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "backfill",
    mixinStandardHelpOptions = true,
    description = {
      "Rebuild an Elasticsearch index from the Postgres copy while the streaming indexer keeps"
          + " running: a copy pass, the alias swap (--swap-alias), a catch-up pass, then the"
          + " documents the copy no longer has are deleted from the target.",
      "The copy is the products document's product_document, or with --documents FILE the copy"
          + " table of the document that definition declares (as `weir run search-index"
          + " --documents FILE` writes it).",
      "Documents the target already holds with the same content hash are not sent again, so a re-run"
          + " or a run started again after a crash sends almost nothing.",
      "Other job options (postgres.url, elasticsearch.url, search.alias, backfill.split-size, ...)"
          + " follow as --key value; with a definition declaring several documents,"
          + " --backfill.document INDEX names the one. Exit code 0 only if nothing failed."
    })
final class BackfillCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--target",
      required = true,
      description = "The index to build, e.g. products-v2 or books-v2.")
  String target;

  @Option(
      names = "--documents",
      paramLabel = "FILE",
      description =
          "A document definition file (the same as --search.documents FILE; see"
              + " docs/document-definitions.md): rebuild its document's index from its copy.")
  String documents;

  @Option(
      names = "--swap-alias",
      description =
          "Move the alias (the definition's index, else search.alias, default products) to the"
              + " target when built.")
  boolean swapAlias;

  @Option(
      names = "--parallelism",
      description = "Parallel readers and writers (default: the job's parallelism).")
  Integer parallelism;

  @Option(names = "--dry-run", description = "Compare and count, send nothing, swap nothing.")
  boolean dryRun;

  @picocli.CommandLine.Unmatched List<String> jobArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    WeirConfig config =
        WeirConfig.fromArgs(jobArgs.toArray(String[]::new))
            .with(BackfillOptions.TARGET, target)
            .with(BackfillOptions.DRY_RUN, Boolean.toString(dryRun));
    if (documents != null) {
      config = config.with(DocumentOptions.DOCUMENTS, documents);
    }
    if (parallelism != null) {
      config = config.with(WeirOptions.PARALLELISM, parallelism.toString());
    }
    return run(config, swapAlias, out, spec.commandLine().getErr()) == null ? 1 : 0;
  }

  /**
   * Rebuilds {@code config}'s target index (as {@code weir backfill} does, {@code weir demo} too),
   * printing progress and the summary to {@code out}; the summary, or null if it failed (the reason
   * printed to {@code err}).
   */
  static Backfill.Summary run(
      WeirConfig config, boolean swapAlias, PrintWriter out, PrintWriter err) throws Exception {
    boolean dryRun = config.get(BackfillOptions.DRY_RUN);
    try {
      Backfill.Summary s =
          Backfill.run(
              config,
              swapAlias,
              () -> RunCommand.localEnvironment(0),
              new Backfill.Progress() {
                @Override
                public void update(String pass, long done, long total, double rate) {
                  double eta = rate > 0 ? Math.max(0, total - done) / rate : Double.NaN;
                  out.printf(
                      "\r%-8s %,d / %,d documents  %,.0f docs/s  ETA %s   ",
                      pass,
                      done,
                      total,
                      rate,
                      Double.isNaN(eta) ? "?" : String.format("%.0f s", eta));
                  out.flush();
                }

                @Override
                public void ended(String pass) {
                  out.println();
                }
              });
      out.printf(
          "%s%s: %,d documents in the copy; sent %,d, skipped as unchanged %,d, deleted %,d (gone"
              + " from the copy), failed 0; %,d bytes sent; %.1f s%s%n",
          dryRun ? "dry run, nothing sent: " : "",
          s.target(),
          s.documents(),
          s.sent(),
          s.skippedUnchanged(),
          s.deleted(),
          s.bytesSent(),
          s.elapsed().toMillis() / 1e3,
          s.swapped() ? "; alias moved to " + s.target() : "");
      out.printf("  steps: %s%n", s.stepsLine());
      return s;
    } catch (BackfillException | DefinitionException e) {
      out.println();
      err.println("weir backfill: " + e.getMessage());
      err.flush();
      return null;
    }
  }
}
