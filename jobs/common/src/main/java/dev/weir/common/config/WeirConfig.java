package dev.weir.common.config;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.flink.api.java.utils.ParameterTool;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;

/**
 * A job's settings: job arguments over environment variables over local defaults. Holds no secret;
 * {@link #postgresPassword()} and {@link #elasticsearchPassword()} read them when asked.
 */
public final class WeirConfig implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Options that fall back to an environment variable when not given, and the variable. */
  private static final Map<String, String> ENV_FALLBACKS =
      Map.ofEntries(
          Map.entry(WeirOptions.KAFKA_BOOTSTRAP_SERVERS.key(), "KAFKA_BOOTSTRAP_SERVERS"),
          Map.entry(WeirOptions.KAFKA_SECURITY_PROTOCOL.key(), "KAFKA_SECURITY_PROTOCOL"),
          Map.entry(WeirOptions.KAFKA_SASL_USERNAME.key(), "KAFKA_USERNAME"),
          Map.entry(WeirOptions.KAFKA_SSL_CA_FILE.key(), "KAFKA_SSL_CA_FILE"),
          Map.entry(WeirOptions.POSTGRES_URL.key(), "POSTGRES_JDBC_URL"),
          // search-index's catalog (cdc-catalog captures it): the local stack's env names it too.
          Map.entry("catalog.postgres.url", "CATALOG_JDBC_URL"),
          Map.entry(WeirOptions.POSTGRES_USER.key(), "PGUSER"),
          Map.entry(WeirOptions.ELASTICSEARCH_URL.key(), "ELASTICSEARCH_URL"),
          Map.entry(WeirOptions.ELASTICSEARCH_USERNAME.key(), "ELASTICSEARCH_USERNAME"),
          Map.entry(WeirOptions.ELASTICSEARCH_CA_FILE.key(), "ELASTICSEARCH_CA_FILE"),
          // identity's Spanner store (IdentityOptions); the local stack's env names its emulator.
          Map.entry("spanner.emulator-host", "SPANNER_EMULATOR_HOST"),
          Map.entry("spanner.project", "SPANNER_PROJECT"),
          Map.entry("spanner.instance", "SPANNER_INSTANCE"),
          Map.entry("spanner.database", "SPANNER_DATABASE"));

  private final Map<String, String> values;

  /**
   * Where secrets are read from; not serialized, so a password never travels inside a job graph:
   * each process reads its own environment.
   */
  private final transient Map<String, String> secretsEnv;

  private WeirConfig(Map<String, String> values, Map<String, String> secretsEnv) {
    this.values = Map.copyOf(values);
    this.secretsEnv = Map.copyOf(secretsEnv);
  }

  /** From {@code --key value} arguments and the process environment. */
  public static WeirConfig fromArgs(String[] args) {
    return from(ParameterTool.fromArgs(args).toMap(), System.getenv());
  }

  public static WeirConfig from(Map<String, String> arguments, Map<String, String> env) {
    Map<String, String> values = new HashMap<>();
    ENV_FALLBACKS.forEach(
        (key, variable) -> {
          String value = env.get(variable);
          if (value != null && !value.isBlank()) {
            values.put(key, value.trim());
          }
        });
    arguments.forEach(
        (k, v) -> {
          if (v == null || "__NO_VALUE_KEY".equals(v)) {
            throw new IllegalArgumentException("argument --" + k + " needs a value");
          }
          values.put(k, v);
        });
    values.forEach(WeirConfig::refusePasswordInUrl);
    Map<String, String> secrets = new HashMap<>();
    for (String variable :
        new String[] {"PGPASSWORD", "ELASTICSEARCH_PASSWORD", "KAFKA_PASSWORD", "WEIR_HOME"}) {
      if (env.get(variable) != null) {
        secrets.put(variable, env.get(variable));
      }
    }
    return new WeirConfig(values, secrets);
  }

  /** Query parameters of a URL that carry a secret. */
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("[?&](ssl)?password=", Pattern.CASE_INSENSITIVE);

  /**
   * A URL setting is part of the job graph (and of error messages that name the URL): a password in
   * it would travel with both. Refused, naming the parameter only, never its value.
   */
  private static void refusePasswordInUrl(String key, String value) {
    var found = PASSWORD_PARAMETER.matcher(value);
    if (key.endsWith("url") && found.find()) {
      String parameter = found.group().substring(1, found.group().length() - 1);
      throw new IllegalArgumentException(
          key
              + " carries a secret ("
              + parameter
              + "=...): it would be in the job graph and in error messages. Give the password"
              + " with postgres.password-file or PGPASSWORD; for a client key, mount an unencrypted"
              + " key from a Secret (sslkey=/path) instead of sslpassword.");
    }
  }

  /**
   * A copy with one more setting: jobs and tests use it to set what they own. A {@link Duration} is
   * written as Flink reads one ("15 s"), not as {@code Duration.toString()} ("PT15S").
   */
  public WeirConfig with(ConfigOption<?> option, Object value) {
    String text =
        value instanceof Duration d ? TimeUtils.formatWithHighestUnit(d) : String.valueOf(value);
    Map<String, String> copy = new HashMap<>(values);
    refusePasswordInUrl(option.key(), text);
    copy.put(option.key(), text);
    return new WeirConfig(copy, env());
  }

  public <T> T get(ConfigOption<T> option) {
    return toConfiguration().get(option);
  }

  public <T> Optional<T> getOptional(ConfigOption<T> option) {
    return toConfiguration().getOptional(option);
  }

  /** As a Flink {@link Configuration}, e.g. to hand to the execution environment. */
  public Configuration toConfiguration() {
    return Configuration.fromMap(values);
  }

  public Map<String, String> asMap() {
    return values;
  }

  public String postgresPassword() {
    return secret(WeirOptions.POSTGRES_PASSWORD_FILE, "PGPASSWORD")
        .or(this::localStackPostgresPassword)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "no PostgreSQL password: set PGPASSWORD or --"
                        + WeirOptions.POSTGRES_PASSWORD_FILE.key()
                        + " <file>"));
  }

  public Optional<String> elasticsearchPassword() {
    return secret(WeirOptions.ELASTICSEARCH_PASSWORD_FILE, "ELASTICSEARCH_PASSWORD");
  }

  public Optional<String> kafkaPassword() {
    return secret(WeirOptions.KAFKA_SASL_PASSWORD_FILE, "KAFKA_PASSWORD");
  }

  private Optional<String> secret(ConfigOption<String> fileOption, String variable) {
    Optional<String> file = getOptional(fileOption);
    if (file.isPresent()) {
      return Optional.of(readSecretFile(Path.of(file.get()), fileOption.key()));
    }
    return Optional.ofNullable(env().get(variable));
  }

  /** On a developer machine the local stack keeps its generated password in its folder. */
  private Optional<String> localStackPostgresPassword() {
    Path home =
        Path.of(
            Optional.ofNullable(System.getProperty("weir.home"))
                .orElse(Optional.ofNullable(env().get("WEIR_HOME")).orElse(".weir")));
    Path file = home.resolve("postgres").resolve("password");
    return Files.isReadable(file)
        ? Optional.of(readSecretFile(file, "local stack"))
        : Optional.empty();
  }

  private Map<String, String> env() {
    return secretsEnv != null ? secretsEnv : System.getenv();
  }

  private static String readSecretFile(Path file, String what) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the secret file " + file + " (" + what + ")", e);
    }
  }
}
