package dev.weir.identity;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The identity job's options (besides the shared ones in WeirOptions). */
public final class IdentityOptions {

  public static final ConfigOption<String> TRACKING_TOPIC =
      ConfigOptions.key("identity.tracking-topic")
          .stringType()
          .defaultValue("tracking.events")
          .withDescription("Tracking events to enrich.");

  public static final ConfigOption<String> IDENTITY_TOPIC =
      ConfigOptions.key("identity.identity-topic")
          .stringType()
          .defaultValue("identity.events")
          .withDescription("identify / alias / merge events.");

  public static final ConfigOption<String> ENRICHED_TOPIC =
      ConfigOptions.key("identity.enriched-topic")
          .stringType()
          .defaultValue("tracking.enriched")
          .withDescription("Output: tracking events with their canonical id, keyed by it.");

  public static final ConfigOption<String> STORE =
      ConfigOptions.key("identity.store")
          .stringType()
          .defaultValue("postgres")
          .withDescription(
              "Where the identity table lives: postgres (postgres.url) or spanner (spanner.*).");

  public static final ConfigOption<Integer> MERGE_CAP =
      ConfigOptions.key("identity.merge-cap")
          .intType()
          .defaultValue(500)
          .withDescription(
              "A merge that would move more distinct ids than this is rejected to the DLQ.");

  public static final ConfigOption<Duration> CACHE_TTL =
      ConfigOptions.key("identity.cache-ttl")
          .durationType()
          .defaultValue(Duration.ofHours(1))
          .withDescription(
              "How long a distinct id's mapping stays cached in keyed state without being used.");

  public static final ConfigOption<Integer> LOOKUP_BATCH =
      ConfigOptions.key("identity.lookup-batch")
          .intType()
          .defaultValue(500)
          .withDescription("Cache misses looked up together in one query, at most.");

  public static final ConfigOption<Duration> LOOKUP_WAIT =
      ConfigOptions.key("identity.lookup-wait")
          .durationType()
          .defaultValue(Duration.ofMillis(20))
          .withDescription("Longest time a cache miss waits for others to share its lookup.");

  public static final ConfigOption<Duration> WRITE_FLUSH =
      ConfigOptions.key("identity.write-flush")
          .durationType()
          .defaultValue(Duration.ofMillis(500))
          .withDescription("Longest time an earliest_seen write waits in the batch.");

  public static final ConfigOption<String> SPANNER_PROJECT =
      ConfigOptions.key("spanner.project")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Cloud Spanner project (identity.store = spanner). Env: SPANNER_PROJECT.");

  public static final ConfigOption<String> SPANNER_INSTANCE =
      ConfigOptions.key("spanner.instance")
          .stringType()
          .noDefaultValue()
          .withDescription("Cloud Spanner instance. Env: SPANNER_INSTANCE.");

  public static final ConfigOption<String> SPANNER_DATABASE =
      ConfigOptions.key("spanner.database")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Cloud Spanner database holding identity_mapping. Env: SPANNER_DATABASE.");

  public static final ConfigOption<String> SPANNER_EMULATOR_HOST =
      ConfigOptions.key("spanner.emulator-host")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "host:port of a Spanner emulator or mock server (plaintext, no credentials); unset in production,"
                  + " where Google application default credentials are used. Env: SPANNER_EMULATOR_HOST.");

  public static final ConfigOption<Boolean> SPANNER_BUILT_IN_METRICS =
      ConfigOptions.key("spanner.built-in-metrics")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Whether the Spanner client exports its client-side metrics to Cloud Monitoring (needs"
                  + " the Monitoring API and monitoring.timeSeries.create); the job's own metrics go"
                  + " through Flink's reporter either way.");

  public static final ConfigOption<Duration> SPANNER_TIMEOUT =
      ConfigOptions.key("spanner.timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(60))
          .withDescription(
              "Longest wait for one Spanner lookup or commit; past it the task fails and the job"
                  + " restarts from its last checkpoint.");

  private IdentityOptions() {}
}
