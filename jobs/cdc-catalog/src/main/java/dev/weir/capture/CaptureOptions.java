package dev.weir.capture;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.documents.DocumentOptions;
import java.time.Duration;
import java.util.Locale;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The cdc-catalog job's options (besides WeirOptions and DocumentOptions). */
public final class CaptureOptions {

  public static final ConfigOption<String> CATALOG_SLOT =
      ConfigOptions.key("catalog.slot")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "cdc-catalog: the replication slot of the database captured (one per database and"
                  + " capture job). Unset: weir_<database>, and _<deployment.id> when set; with"
                  + " documents on several databases, each database's is <catalog.slot>_<database>.");

  public static final ConfigOption<String> CATALOG_PUBLICATION =
      ConfigOptions.key("catalog.publication")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "cdc-catalog: the publication of the captured tables of a database, created for them"
                  + " only. Named as catalog.slot is.");

  /** The replication slot that captures {@code database} ({@link #CATALOG_SLOT}). */
  public static String slot(WeirConfig config, String database, boolean severalDatabases) {
    return name(config, CATALOG_SLOT, database, severalDatabases);
  }

  /** The publication of {@code database}'s captured tables ({@link #CATALOG_PUBLICATION}). */
  public static String publication(WeirConfig config, String database, boolean severalDatabases) {
    return name(config, CATALOG_PUBLICATION, database, severalDatabases);
  }

  /**
   * The name given, or one derived from the database (and the deployment), so that two captures on
   * one server, of two databases or by two deployments, never share a slot.
   */
  private static String name(
      WeirConfig config, ConfigOption<String> option, String database, boolean several) {
    String name;
    if (config.getOptional(option).isPresent()) {
      String given = DocumentOptions.identifier(config, option);
      name = several ? given + "_" + plain(database) : given;
    } else {
      name =
          "weir_"
              + plain(database)
              + config.getOptional(WeirOptions.DEPLOYMENT_ID).map(id -> "_" + plain(id)).orElse("");
    }
    return name.length() > 63 ? name.substring(0, 63) : name;
  }

  /** A database's (or deployment's) name as a plain PostgreSQL name's part. */
  private static String plain(String name) {
    return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
  }

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
