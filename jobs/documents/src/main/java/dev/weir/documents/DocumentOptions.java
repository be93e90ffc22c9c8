package dev.weir.documents;

import dev.weir.common.config.WeirConfig;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The options of the declared documents, shared by cdc-catalog, search-index and backfill: which
 * definition, the source database, the topics its tables are captured to.
 */
public final class DocumentOptions {

  public static final ConfigOption<String> CATALOG_URL =
      ConfigOptions.key("catalog.postgres.url")
          .stringType()
          .defaultValue("jdbc:postgresql://127.0.0.1:15432/catalog")
          .withDescription(
              "The source databases' server: each document is read and captured in the database"
                  + " its definition names, on this server with these parameters; the bundled"
                  + " products definition in this URL's database (user and password as"
                  + " postgres.*). Env: CATALOG_JDBC_URL.");

  public static final ConfigOption<String> DOCUMENTS =
      ConfigOptions.key("search.documents")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A document definition file (PGSync's schema.json format, with weir's extensions):"
                  + " search-index indexes the documents it declares, and cdc-catalog captures"
                  + " exactly its tables. Several files, separated by commas: cdc-catalog"
                  + " captures the tables of all (as during `weir documents apply`). Without it,"
                  + " the bundled products definition (schemas/documents/products.json) behind"
                  + " search.alias.");

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

  /** The database of a PostgreSQL JDBC URL ({@code jdbc:postgresql://host:port/database?...}). */
  public static String database(String url) {
    int[] at = databaseAt(url);
    return url.substring(at[0], at[1]);
  }

  /**
   * {@code url} naming {@code database} instead of its own: the same server, user and parameters,
   * where a definition's {@code database} is read and captured.
   */
  public static String withDatabase(String url, String database) {
    int[] at = databaseAt(url);
    return url.substring(0, at[0]) + database + url.substring(at[1]);
  }

  /** Where the database's name starts and ends in the URL. */
  private static int[] databaseAt(String url) {
    int hosts = url.indexOf("//");
    int slash = hosts < 0 ? -1 : url.indexOf('/', hosts + 2);
    if (!url.startsWith("jdbc:postgresql:") || slash < 0) {
      throw new IllegalArgumentException(
          CATALOG_URL.key()
              + " '"
              + url
              + "' is not jdbc:postgresql://host[:port]/database: weir reads each document's"
              + " database on its server");
    }
    int query = url.indexOf('?', slash);
    return new int[] {slash + 1, query < 0 ? url.length() : query};
  }

  public static final ConfigOption<Integer> INDEX_SHARDS =
      ConfigOptions.key("search.index.shards")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Primary shards of each index weir creates, over the definition's setting"
                  + " number_of_shards (default there: 1). Takes effect on an index weir creates:"
                  + " the first, or a backfill's target.");

  public static final ConfigOption<Integer> INDEX_REPLICAS =
      ConfigOptions.key("search.index.replicas")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Replicas of each index weir creates, over the definition's setting"
                  + " number_of_replicas (default there: 0, for a single node; the production"
                  + " overlay sets 1, so that an index survives the loss of a node).");

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

  private DocumentOptions() {}
}
