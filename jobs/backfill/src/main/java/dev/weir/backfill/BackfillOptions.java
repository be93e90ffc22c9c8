package dev.weir.backfill;

import dev.weir.common.config.WeirConfig;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The backfill's options. The copy is at postgres.url: the copy table of the document of
 * search.documents (by default the bundled products definition, behind search.alias).
 */
public final class BackfillOptions {

  public static final ConfigOption<String> TARGET =
      ConfigOptions.key("backfill.target")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The index to rebuild: created if missing from the mapping derived from the"
                  + " document's definition, else its mapping must match.");

  public static final ConfigOption<String> DOCUMENT =
      ConfigOptions.key("backfill.document")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "With search.documents: the document to rebuild, by its index (alias) name. Needed"
                  + " only when the definition file declares several.");

  public static final ConfigOption<Integer> SPLIT_SIZE =
      ConfigOptions.key("backfill.split-size")
          .intType()
          .defaultValue(1000)
          .withDescription("Documents per split: the unit of parallel reading and of comparison.");

  public static final ConfigOption<Boolean> DRY_RUN =
      ConfigOptions.key("backfill.dry-run")
          .booleanType()
          .defaultValue(false)
          .withDescription("Compare and count what would be sent, send nothing.");

  public static final ConfigOption<Duration> SETTLE =
      ConfigOptions.key("backfill.settle")
          .durationType()
          .defaultValue(Duration.ofSeconds(5))
          .withDescription(
              "After the alias swap, how long to wait for the streaming job's writes in flight (its"
                  + " copy and index flush intervals) before the catch-up pass.");

  public static final ConfigOption<Boolean> SWAP_ALIAS =
      ConfigOptions.key("backfill.swap-alias")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Move the alias (the declared document's index, else search.alias) to the target once"
                  + " built (the command line's --swap-alias).");

  private BackfillOptions() {}

  /** The target index; a clear error when none was given. */
  static String target(WeirConfig config) {
    return config
        .getOptional(TARGET)
        .orElseThrow(() -> new BackfillException("no target index: give --target <index>"));
  }
}
