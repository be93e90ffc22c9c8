package dev.weir.connector.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchAsyncClient;
import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.TransportException;
import co.elastic.clients.transport.TransportUtils;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import dev.weir.schema.Json;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.net.ssl.SSLContext;
import org.apache.http.HttpHost;
import org.apache.http.auth.AuthScope;
import org.apache.http.auth.UsernamePasswordCredentials;
import org.apache.http.impl.client.BasicCredentialsProvider;
import org.elasticsearch.client.RestClient;
import org.elasticsearch.client.RestClientBuilder;

/** The one place Elasticsearch clients (official elasticsearch-java 8) are built. */
public final class ElasticsearchClients {

  private ElasticsearchClients() {}

  public static RestClientTransport transport(ElasticsearchSettings settings) {
    RestClientBuilder builder = RestClient.builder(HttpHost.create(settings.url()));
    BasicCredentialsProvider credentials = null;
    if (settings.username() != null) {
      String password =
          settings
              .password()
              .read()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "elasticsearch.username is set but no password: set ELASTICSEARCH_PASSWORD"
                              + " or --elasticsearch.password-file"));
      credentials = new BasicCredentialsProvider();
      credentials.setCredentials(
          AuthScope.ANY, new UsernamePasswordCredentials(settings.username(), password));
    }
    // HTTPS with a CA of the deployment's own (otherwise the JVM's trust store decides).
    SSLContext tls = settings.caFile() == null ? null : trusting(settings.caFile());
    BasicCredentialsProvider login = credentials;
    builder.setHttpClientConfigCallback(
        http -> {
          if (login != null) {
            http.setDefaultCredentialsProvider(login);
          }
          if (tls != null) {
            http.setSSLContext(tls);
          }
          return http;
        });
    builder.setRequestConfigCallback(r -> r.setConnectTimeout(5_000).setSocketTimeout(60_000));
    return new RestClientTransport(builder.build(), new JacksonJsonpMapper(Json.mapper()));
  }

  private static SSLContext trusting(String caFile) {
    try {
      return TransportUtils.sslContextFromHttpCaCrt(new File(caFile));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the Elasticsearch CA file " + caFile + ": " + e.getMessage(), e);
    }
  }

  public static ElasticsearchClient blocking(ElasticsearchSettings settings) {
    return new ElasticsearchClient(transport(settings));
  }

  public static ElasticsearchAsyncClient async(ElasticsearchSettings settings) {
    return new ElasticsearchAsyncClient(transport(settings));
  }

  /**
   * What went wrong talking to Elasticsearch, for a person: a refused login says so (a HEAD
   * request's 401 carries no body to explain it), anything else keeps Elasticsearch's own words.
   */
  public static String explain(ElasticsearchSettings settings, Exception failure) {
    if (failure instanceof TransportException t && t.statusCode() == 401) {
      return "Elasticsearch at "
          + settings.url()
          + " refused the login"
          + (settings.username() == null
              ? " (no elasticsearch.username is set)"
              : " of user '"
                  + settings.username()
                  + "' (401): check elasticsearch.username and its password");
    }
    if (failure instanceof TransportException t && t.statusCode() == 403) {
      return "Elasticsearch at "
          + settings.url()
          + " does not let user '"
          + settings.username()
          + "' do this (403): "
          + failure.getMessage();
    }
    return "Elasticsearch at " + settings.url() + ": " + failure.getMessage();
  }

  /** The low-level REST client under a client made here, for requests sent as they are. */
  public static RestClient rest(ElasticsearchClient es) {
    return ((RestClientTransport) es._transport()).restClient();
  }
}
