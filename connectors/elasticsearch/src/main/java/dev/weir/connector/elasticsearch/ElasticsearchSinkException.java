package dev.weir.connector.elasticsearch;

/** Elasticsearch refused a document for a reason retrying cannot fix (e.g. a mapping error). */
public class ElasticsearchSinkException extends RuntimeException {
  public ElasticsearchSinkException(String message) {
    super(message);
  }
}
