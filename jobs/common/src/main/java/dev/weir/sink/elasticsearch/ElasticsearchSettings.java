package dev.weir.sink.elasticsearch;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.io.Serializable;

/** Where and how to reach Elasticsearch. The password is read in each process, never serialized. */
public record ElasticsearchSettings(String url, String username, WeirConfig config)
    implements Serializable {

  public static ElasticsearchSettings from(WeirConfig config) {
    return new ElasticsearchSettings(
        config.get(WeirOptions.ELASTICSEARCH_URL),
        config.getOptional(WeirOptions.ELASTICSEARCH_USERNAME).orElse(null),
        config);
  }
}
