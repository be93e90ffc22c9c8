package dev.weir.it;

import dev.weir.common.config.WeirConfig;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the local stack (real Kafka, PostgreSQL, a search engine) once per test run, shared by
 * every ITCase, and stops what it started when the run ends. Set {@code -Dweir.stack.keep=true} to
 * leave it running for the next run. The search engine is Elasticsearch 8 unless {@code
 * -Dweir.search=elasticsearch9|opensearch2} (or {@code WEIR_SEARCH}) says otherwise; a stack left
 * running with another engine is refused, not replaced.
 */
public final class LocalStackExtension implements BeforeAllCallback {

  private static final String KEY = "weir-local-stack";

  @Override
  public void beforeAll(ExtensionContext context) {
    context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(KEY, k -> new Running(), Running.class);
  }

  /** The connection settings of the running stack. */
  public static Connections connections() {
    return Running.instance.connections;
  }

  /** A job configuration pointing at the running stack. */
  public static WeirConfig config() {
    return WeirConfig.from(Map.of(), connections().environment());
  }

  public static LocalStack stack() {
    return Running.instance.stack;
  }

  private static final class Running implements ExtensionContext.Store.CloseableResource {
    static Running instance;
    final LocalStack stack = LocalStack.fromEnvironment();
    final Connections connections;

    Running() {
      long start = System.nanoTime();
      connections = stack.up();
      System.out.printf(
          "local stack ready in %.1f s (search engine: %s; started here: %s)%n",
          (System.nanoTime() - start) / 1e9,
          stack.searchEngine().key(),
          stack.startedHere().stream().map(s -> s.name()).toList());
      instance = this;
      try {
        System.out.println(
            EarlierTestRuns.removeLeftovers(config(), connections.postgresJdbcUrl("postgres")));
      } catch (Exception e) {
        // Leftovers cost disk, not correctness: the run goes on.
        System.out.println("could not remove what earlier test runs left: " + e);
      }
    }

    @Override
    public void close() {
      if (!Boolean.getBoolean("weir.stack.keep")) {
        stack.stopStartedHere();
      }
    }
  }
}
