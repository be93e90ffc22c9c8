package dev.weir.it;

import dev.weir.common.config.WeirConfig;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import dev.weir.stack.SearchEngine;
import dev.weir.stack.StackSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts the local stack (real Kafka, PostgreSQL, a search engine) once per test JVM, shared by
 * every ITCase it runs, and stops what it started when the JVM exits. Set {@code
 * -Dweir.stack.keep=true} to leave it running for the next run. The search engine is Elasticsearch
 * 8 unless {@code -Dweir.search=elasticsearch9|opensearch2} (or {@code WEIR_SEARCH}) says
 * otherwise; a stack left running with another engine is refused, not replaced.
 *
 * <p>A suite names the engine its classes run on with the configuration parameter {@value
 * #SEARCH_ENGINE} (see {@code SearchOnElasticsearch9}): a class asking for another engine than the
 * one this JVM's stack runs gets it in its place, if this JVM started the one running (the other
 * services stay up). A test method takes the engine its class asked for as a {@link SearchEngine}
 * parameter.
 *
 * <p>Failsafe runs the ITCase classes in two JVMs at once ({@code forkCount}); each fork runs a
 * stack of its own, so that two classes never share a database, topic, index or service that one of
 * them restarts. The first fork's stack is the configured one ({@code .weir/}, the default ports);
 * fork <i>n</i>'s lives in {@code .weir-n/} on ports {@value #FORK_PORT_STEP}·(<i>n</i>−1) higher
 * ({@code weir.it.fork} is Surefire's fork number).
 */
public final class LocalStackExtension implements BeforeAllCallback, ParameterResolver {

  /** The search engine a class runs on: a configuration parameter, or the system property. */
  public static final String SEARCH_ENGINE = "weir.search";

  /**
   * Apart enough that a fork's ports and their neighbours (+1..+3, +10, +100) clear the other
   * fork's, and the second stack LocalStackITCase starts (+50).
   */
  static final int FORK_PORT_STEP = 20;

  static {
    // Before anything in this JVM reads the stack's settings: the CLI and jobs run in-process
    // read them from the system properties too.
    moveToThisForksStack(Integer.getInteger("weir.it.fork", 1));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    Running.ensureUp(askedEngine(context));
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SearchEngine.class;
  }

  /** The engine the class asked for, else the one the stack runs. */
  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return askedEngine(context).orElseGet(() -> stack().searchEngine());
  }

  private static Optional<SearchEngine> askedEngine(ExtensionContext context) {
    return context.getConfigurationParameter(SEARCH_ENGINE).map(SearchEngine::of);
  }

  /** The connection settings of the running stack. */
  public static Connections connections() {
    return Running.current().connections;
  }

  /** A job configuration pointing at the running stack. */
  public static WeirConfig config() {
    return WeirConfig.from(Map.of(), connections().environment());
  }

  public static LocalStack stack() {
    return Running.current().stack;
  }

  private static void moveToThisForksStack(int fork) {
    if (fork <= 1) {
      return;
    }
    StackSettings configured = StackSettings.fromEnvironment();
    configured
        .besideAt(Path.of(configured.home() + "-" + fork), FORK_PORT_STEP * (fork - 1))
        .forEach(System::setProperty);
  }

  /**
   * Up once per JVM and stopped when it exits, not when a test plan ends: with more than one fork,
   * Surefire runs each class a fork takes as a test plan of its own.
   */
  private static final class Running {
    /**
     * Each stack brought up in this JVM, the latest last: the one in use. One more per search
     * engine swapped in.
     */
    private static final List<Running> BROUGHT_UP = new ArrayList<>();

    final LocalStack stack = LocalStack.fromEnvironment();
    final Connections connections;

    /** Brings the stack up with this search engine, or with the configured one when empty. */
    static synchronized void ensureUp(Optional<SearchEngine> engine) {
      if (!BROUGHT_UP.isEmpty()) {
        Running current = current();
        if (engine.map(e -> e == current.stack.searchEngine()).orElse(true)) {
          return;
        }
        current.stopSearchEngineFor(engine.get());
      }
      engine.ifPresent(e -> System.setProperty(SEARCH_ENGINE, e.key()));
      Running running = new Running();
      BROUGHT_UP.add(running);
      if (BROUGHT_UP.size() == 1) {
        Runtime.getRuntime().addShutdownHook(new Thread(Running::stopAll, "stop the local stack"));
      }
      running.removeEarlierTestRunsLeftovers();
    }

    /** The stack in use. */
    static synchronized Running current() {
      return BROUGHT_UP.get(BROUGHT_UP.size() - 1);
    }

    Running() {
      long start = System.nanoTime();
      connections = stack.up();
      System.out.printf(
          "local stack ready in %.1f s (search engine: %s; started here: %s)%n",
          (System.nanoTime() - start) / 1e9,
          stack.searchEngine().key(),
          stack.startedHere().stream().map(s -> s.name()).toList());
    }

    private void removeEarlierTestRunsLeftovers() {
      try {
        System.out.println(
            EarlierTestRuns.removeLeftovers(config(), connections.postgresJdbcUrl("postgres")));
      } catch (Exception e) {
        // Leftovers cost disk, not correctness: the run goes on.
        System.out.println("could not remove what earlier test runs left: " + e);
      }
    }

    /** Stops this stack's search engine, so that {@code next} can take its port. */
    private void stopSearchEngineFor(SearchEngine next) {
      LocalService node = stack.elasticsearch();
      if (!stack.startedHere().contains(node)) {
        throw new IllegalStateException(
            String.format(
                "a test asks for %s, but %s runs on the stack in %s and this JVM did not start it:"
                    + " stop it first (bin/weir stack down)",
                next.key(), stack.searchEngine().key(), stack.settings().home()));
      }
      node.stop();
    }

    /** The latest first: its search engine, then what the first one started. */
    private static synchronized void stopAll() {
      if (!Boolean.getBoolean("weir.stack.keep")) {
        for (int i = BROUGHT_UP.size() - 1; i >= 0; i--) {
          BROUGHT_UP.get(i).stack.stopStartedHere();
        }
      }
    }
  }
}
