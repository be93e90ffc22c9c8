package dev.weir.common.kafka;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.util.Locale;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * How weir's Kafka clients connect: one set of client properties, for every source, sink, admin.
 */
public final class KafkaClients {

  private KafkaClients() {}

  /**
   * How every Kafka client of a job connects: the bootstrap servers and, for a secured cluster, the
   * protocol, the SASL login and the CA to trust. The SASL password is not among them: {@link
   * SecretScramLoginModule} reads it in the process that logs in.
   */
  public static Properties clientProperties(WeirConfig config) {
    Properties props = new Properties();
    props.setProperty(
        CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
        config.get(WeirOptions.KAFKA_BOOTSTRAP_SERVERS));
    String protocol = config.get(WeirOptions.KAFKA_SECURITY_PROTOCOL).toUpperCase(Locale.ROOT);
    props.setProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
    if (protocol.startsWith("SASL_")) {
      String mechanism = config.get(WeirOptions.KAFKA_SASL_MECHANISM);
      if (!mechanism.startsWith("SCRAM-")) {
        throw new IllegalArgumentException(
            "kafka.sasl.mechanism " + mechanism + ": weir logs in with SCRAM-SHA-256 or -512");
      }
      String user =
          config
              .getOptional(WeirOptions.KAFKA_SASL_USERNAME)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "kafka.security.protocol "
                              + protocol
                              + " needs kafka.sasl.username (env KAFKA_USERNAME)"));
      String passwordFrom =
          config
              .getOptional(WeirOptions.KAFKA_SASL_PASSWORD_FILE)
              .map(f -> "passwordFile=\"" + jaasQuoted(f) + "\"")
              .orElse("passwordEnv=\"KAFKA_PASSWORD\"");
      props.setProperty(SaslConfigs.SASL_MECHANISM, mechanism);
      props.setProperty(
          SaslConfigs.SASL_JAAS_CONFIG,
          SecretScramLoginModule.class.getName()
              + " required username=\""
              + jaasQuoted(user)
              + "\" "
              + passwordFrom
              + ";");
    }
    config
        .getOptional(WeirOptions.KAFKA_SSL_CA_FILE)
        .ifPresent(
            ca -> {
              props.setProperty(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
              props.setProperty(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca);
            });
    return props;
  }

  private static String jaasQuoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /** An admin client of the configured cluster; the caller closes it. */
  public static Admin admin(WeirConfig config) {
    return admin(clientProperties(config));
  }

  /** The same, from {@link #clientProperties} carried into a running job. */
  public static Admin admin(Properties clientProperties) {
    Properties props = new Properties();
    props.putAll(clientProperties);
    props.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    return Admin.create(props);
  }
}
