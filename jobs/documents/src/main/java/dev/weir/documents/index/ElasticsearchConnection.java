package dev.weir.documents.index;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.connector.elasticsearch.ElasticsearchSettings;
import dev.weir.connector.elasticsearch.SearchCluster;

/** How weir's configuration names the search cluster: the one place its settings are read. */
public final class ElasticsearchConnection {

  private ElasticsearchConnection() {}

  /** A client of the configuration's cluster (close it). */
  public static SearchCluster cluster(WeirConfig config) {
    return SearchCluster.connect(settings(config));
  }

  /**
   * The cluster at {@code elasticsearch.url}, with the user, the password (read where the client is
   * built, from the environment or its file), the CA file, the engine and the socket timeout the
   * configuration names.
   */
  public static ElasticsearchSettings settings(WeirConfig config) {
    return new ElasticsearchSettings(
        config.get(WeirOptions.ELASTICSEARCH_URL),
        config.getOptional(WeirOptions.ELASTICSEARCH_USERNAME).orElse(null),
        config::elasticsearchPassword,
        config.getOptional(WeirOptions.ELASTICSEARCH_CA_FILE).orElse(null),
        config.getOptional(WeirOptions.ELASTICSEARCH_ENGINE).orElse(null),
        config.get(WeirOptions.ELASTICSEARCH_SOCKET_TIMEOUT));
  }
}
