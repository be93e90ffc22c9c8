package dev.weir.connector.elasticsearch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.http.HttpHost;
import org.apache.http.auth.AuthScope;
import org.apache.http.auth.UsernamePasswordCredentials;
import org.apache.http.impl.client.BasicCredentialsProvider;
import org.elasticsearch.client.RestClient;
import org.elasticsearch.client.RestClientBuilder;

/**
 * The one place the search cluster's HTTP client is built: the low-level REST client, which sends
 * plain JSON and checks nothing about the engine, so the same client speaks to Elasticsearch 8 and
 * 9 and to OpenSearch 2 (the typed elasticsearch-java clients each refuse one of them).
 */
public final class ElasticsearchClients {

  private ElasticsearchClients() {}

  /** A REST client for the cluster of {@code settings}: its login, its CA, timeouts. */
  public static RestClient rest(ElasticsearchSettings settings) {
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
    int socketTimeoutMs = (int) settings.socketTimeout().toMillis();
    builder.setRequestConfigCallback(
        r -> r.setConnectTimeout(5_000).setSocketTimeout(socketTimeoutMs));
    return builder.build();
  }

  /** An SSL context that trusts the CA certificates of a PEM file. */
  private static SSLContext trusting(String caFile) {
    try (InputStream in = Files.newInputStream(Path.of(caFile))) {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int i = 0;
      for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trusted.setCertificateEntry("ca-" + i++, ca);
      }
      if (i == 0) {
        throw new IOException("no certificate in it");
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new UncheckedIOException(
          "cannot read the Elasticsearch CA file " + caFile + ": " + e.getMessage(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  /**
   * What went wrong talking to the cluster, for a person: a refused login says so (a HEAD request's
   * 401 carries no body to explain it), anything else keeps the engine's own words.
   */
  public static String explain(ElasticsearchSettings settings, Exception failure) {
    if (failure instanceof SearchException e && e.status() == 401) {
      return "Elasticsearch at "
          + settings.url()
          + " refused the login"
          + (settings.username() == null
              ? " (no elasticsearch.username is set)"
              : " of user '"
                  + settings.username()
                  + "' (401): check elasticsearch.username and its password");
    }
    if (failure instanceof SearchException e && e.status() == 403) {
      return "Elasticsearch at "
          + settings.url()
          + " does not let user '"
          + settings.username()
          + "' do this (403): "
          + failure.getMessage();
    }
    return "Elasticsearch at " + settings.url() + ": " + failure.getMessage();
  }
}
