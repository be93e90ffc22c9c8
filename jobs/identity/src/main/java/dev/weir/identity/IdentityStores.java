package dev.weir.identity;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.store.BatchStore;
import org.apache.flink.configuration.ConfigOption;

/** Opens the configured identity store (in the task: credentials never travel in the job). */
public final class IdentityStores {

  /** How a task opens its store. */
  @FunctionalInterface
  public interface Opener extends BatchStore.Opener<IdentityRecord, Void> {
    @Override
    IdentityStore open() throws Exception;
  }

  private IdentityStores() {}

  public static Opener of(WeirConfig config) {
    String kind = config.get(IdentityOptions.STORE);
    return switch (kind) {
      case "postgres" -> () -> new PostgresIdentityStore(PostgresConnectionProvider.open(config));
      case "spanner" -> () -> spanner(config);
      default ->
          throw new IllegalArgumentException(
              "identity.store must be postgres or spanner, not '" + kind + "'");
    };
  }

  private static IdentityStore spanner(WeirConfig config) {
    String project = required(config, IdentityOptions.SPANNER_PROJECT);
    SpannerOptions.Builder options = SpannerOptions.newBuilder().setProjectId(project);
    config
        .getOptional(IdentityOptions.SPANNER_EMULATOR_HOST)
        .ifPresent(
            host -> options.setEmulatorHost(host).setCredentials(NoCredentials.getInstance()));
    Spanner spanner = options.build().getService();
    return new SpannerIdentityStore(
        spanner.getDatabaseClient(
            DatabaseId.of(
                project,
                required(config, IdentityOptions.SPANNER_INSTANCE),
                required(config, IdentityOptions.SPANNER_DATABASE))),
        spanner::close);
  }

  private static String required(WeirConfig config, ConfigOption<String> option) {
    return config
        .getOptional(option)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    option.key() + " is required when identity.store = spanner"));
  }
}
