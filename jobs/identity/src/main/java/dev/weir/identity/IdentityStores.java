package dev.weir.identity;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.store.BatchStore;

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
      case "spanner" -> {
        SpannerClients.Settings spanner = SpannerClients.Settings.of(config);
        yield () -> {
          SpannerClients.Lease lease = SpannerClients.lease(spanner);
          return new SpannerIdentityStore(lease.client(), lease);
        };
      }
      default ->
          throw new IllegalArgumentException(
              "identity.store must be postgres or spanner, not '" + kind + "'");
    };
  }
}
