package dev.weir.capture;

import dev.weir.common.config.WeirConfig;
import dev.weir.documents.DocumentOptions;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The cdc-catalog job's options (besides WeirOptions and DocumentOptions). */
public final class CaptureOptions {

  public static final ConfigOption<String> CATALOG_SLOT =
      ConfigOptions.key("catalog.slot")
          .stringType()
          .defaultValue("weir_catalog")
          .withDescription("cdc-catalog: the replication slot (one per capture job).");

  public static final ConfigOption<String> CATALOG_PUBLICATION =
      ConfigOptions.key("catalog.publication")
          .stringType()
          .defaultValue("weir_catalog")
          .withDescription(
              "cdc-catalog: the publication, created for the captured tables only (filtered).");

  public static final ConfigOption<Duration> HEARTBEAT =
      ConfigOptions.key("catalog.heartbeat")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "cdc-catalog: how often the capture moves its slot on when its tables have no"
                  + " changes. The server's WAL is shared by every database on it: without this, a"
                  + " quiet catalog's slot keeps all of the other databases' WAL.");

  /**
   * {@code config} with a catalog capture and an index of their own, beside a deployment's defaults
   * (the demo, the benchmark, the tests): the catalog database at {@code catalogUrl}, the
   * replication slot and publication {@code slot}, the topics {@code <topics>.cdc.catalog.*} and
   * {@code <topics>.pricing.events}, and the alias {@code alias} with {@code <alias>-v1} made
   * behind it.
   */
  public static WeirConfig ownCatalog(
      WeirConfig config, String catalogUrl, String slot, String topics, String alias) {
    return config
        .with(DocumentOptions.CATALOG_URL, catalogUrl)
        .with(CATALOG_SLOT, slot)
        .with(CATALOG_PUBLICATION, slot)
        .with(DocumentOptions.CDC_TOPIC_PREFIX, topics + ".cdc.catalog.")
        .with(DocumentOptions.PRICING_TOPIC, topics + ".pricing.events")
        .with(DocumentOptions.ALIAS, alias);
  }

  private CaptureOptions() {}
}
