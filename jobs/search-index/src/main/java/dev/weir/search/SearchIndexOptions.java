package dev.weir.search;

import dev.weir.common.config.WeirConfig;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The search-index and cdc-catalog jobs' options (besides the shared ones in WeirOptions). */
public final class SearchIndexOptions {

  public static final ConfigOption<String> CDC_TOPIC_PREFIX =
      ConfigOptions.key("search.cdc-topic-prefix")
          .stringType()
          .defaultValue("cdc.catalog.")
          .withDescription(
              "Debezium change events of the captured tables: <prefix><table>, or"
                  + " <prefix><schema>.<table> outside public.");

  public static final ConfigOption<String> PRICING_TOPIC =
      ConfigOptions.key("search.pricing-topic")
          .stringType()
          .defaultValue("pricing.events")
          .withDescription(
              "The bundled products definition's prices (the highest version wins); a definition"
                  + " file names its own topics.");

  public static final ConfigOption<String> ALIAS =
      ConfigOptions.key("search.alias")
          .stringType()
          .defaultValue("products")
          .withDescription(
              "The bundled products definition's Elasticsearch alias, which searches use and the"
                  + " job writes to (its first index: <alias>-v1); a definition file names its own"
                  + " (its index).");

  public static final ConfigOption<Duration> WRITE_FLUSH =
      ConfigOptions.key("search.write-flush")
          .durationType()
          .defaultValue(Duration.ofMillis(500))
          .withDescription(
              "How long writes to the copy table may wait to be batched (also at each checkpoint).");

  public static final ConfigOption<Duration> INDEX_FLUSH =
      ConfigOptions.key("search.index-flush")
          .durationType()
          .defaultValue(Duration.ofMillis(500))
          .withDescription("How long a partial Elasticsearch bulk may wait.");

  public static final ConfigOption<String> CATALOG_URL =
      ConfigOptions.key("catalog.postgres.url")
          .stringType()
          .defaultValue("jdbc:postgresql://127.0.0.1:15432/catalog")
          .withDescription(
              "cdc-catalog: the catalog database to capture (user and password as postgres.*)."
                  + " Env: CATALOG_JDBC_URL.");

  public static final ConfigOption<String> DOCUMENTS =
      ConfigOptions.key("search.documents")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A document definition file (PGSync's schema.json format, with weir's extensions):"
                  + " search-index indexes the documents it declares, and cdc-catalog captures"
                  + " exactly its tables. Without it, the bundled products definition"
                  + " (schemas/documents/products.json) behind search.alias.");

  public static final ConfigOption<Duration> COALESCE =
      ConfigOptions.key("search.coalesce")
          .durationType()
          .defaultValue(Duration.ofMillis(200))
          .withDescription(
              "How long the join gathers changes of one row or document"
                  + " before passing it on (a burst of changes makes one write).");

  public static final ConfigOption<Duration> CHANGE_LAG =
      ConfigOptions.key("search.change-lag")
          .durationType()
          .defaultValue(Duration.ofSeconds(1))
          .withDescription(
              "How long after its commit a change reaches its topic, at most,"
                  + " and how long a topic with nothing to read waits before it counts as caught"
                  + " up. A document is written once every topic has been read up to the changes it"
                  + " holds, so a backlog or a replay from the start is written in the order it was"
                  + " made; a quiet job writes a change about this long after it arrives. A later"
                  + " change is still applied.");

  public static final ConfigOption<Integer> SOURCE_EPOCH =
      ConfigOptions.key("search.source-epoch")
          .intType()
          .defaultValue(0)
          .withDescription(
              "Raise it (by one, up to 127) when the source database moves to"
                  + " a new PostgreSQL cluster and is captured without a new snapshot: its LSNs"
                  + " start lower, and changes would otherwise look older than those held.");

  public static final ConfigOption<Duration> TOMBSTONE_TTL =
      ConfigOptions.key("search.tombstone-ttl")
          .durationType()
          .defaultValue(Duration.ofDays(7))
          .withDescription(
              "How long the join remembers a deleted row's last stamp and a deleted document's"
                  + " version (to recognize a late re-delivery).");

  /**
   * A PostgreSQL identifier weir names in SQL (a slot, a publication): lower-case letters, digits
   * and underscores, as replication slots must be, so that it needs no quoting anywhere.
   */
  public static String identifier(WeirConfig config, ConfigOption<String> option) {
    String value = config.get(option);
    if (!value.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException(
          option.key()
              + " '"
              + value
              + "' is not a plain PostgreSQL name: use lower-case letters, digits and _ (at most 63)");
    }
    return value;
  }

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
        .with(CATALOG_URL, catalogUrl)
        .with(CATALOG_SLOT, slot)
        .with(CATALOG_PUBLICATION, slot)
        .with(CDC_TOPIC_PREFIX, topics + ".cdc.catalog.")
        .with(PRICING_TOPIC, topics + ".pricing.events")
        .with(ALIAS, alias);
  }

  private SearchIndexOptions() {}
}
