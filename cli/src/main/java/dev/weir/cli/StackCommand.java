package dev.weir.cli;

import dev.weir.stack.Connections;
import dev.weir.stack.LocalService;
import dev.weir.stack.LocalStack;
import dev.weir.stack.SearchEngine;
import dev.weir.stack.SpannerEmulatorService;
import dev.weir.stack.StackSettings;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "stack",
    mixinStandardHelpOptions = true,
    description = {
      "Real Kafka, PostgreSQL and a search engine (Elasticsearch 8 or 9, OpenSearch 2) on 127.0.0.1,",
      "fetched from Maven Central.",
      "Files live in .weir/ (WEIR_HOME); ports: WEIR_KAFKA_PORT, WEIR_POSTGRES_PORT, WEIR_ELASTICSEARCH_PORT."
    })
final class StackCommand {

  @Spec CommandSpec spec;

  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description =
          "Start every service that is not up (reusing those that are) and write .weir/stack.env.")
  int up(
      @Option(
              names = "--search",
              paramLabel = "ENGINE",
              description =
                  "The search engine: elasticsearch8 (default), elasticsearch9 or opensearch2"
                      + " (also WEIR_SEARCH). One runs at a time: another one running is refused.")
          String search) {
    StackSettings settings = StackSettings.fromEnvironment();
    if (search != null) {
      settings = settings.withSearchEngine(SearchEngine.of(search));
    }
    LocalStack stack = new LocalStack(settings);
    long start = System.nanoTime();
    Connections connections = stack.up();
    PrintWriter out = spec.commandLine().getOut();
    printServices(out, stack, stack.startedHere());
    out.printf(
        "ready in %.1f s; connection settings: %s (source it: . %s)%n",
        (System.nanoTime() - start) / 1e9, stack.envFile(), stack.envFile());
    out.printf(
        "psql: PGPASSWORD from that file; Kafka: %s; %s: %s%n",
        connections.kafkaBootstrapServers(),
        stack.searchEngine().key(),
        connections.elasticsearchUrl());
    return 0;
  }

  @Command(
      name = "down",
      mixinStandardHelpOptions = true,
      description = "Stop every service of the stack's folder.")
  int down() {
    LocalStack stack = LocalStack.fromEnvironment();
    stack.down();
    PrintWriter out = spec.commandLine().getOut();
    for (LocalService service : stack.services()) {
      out.printf(
          "%-16s %s%n",
          service.name(), service.isUp() ? "STILL UP at " + service.address() : "stopped");
    }
    return stack.services().stream().anyMatch(LocalService::isUp) ? 1 : 0;
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "Print each service's address and state.")
  int status() {
    LocalStack stack = LocalStack.fromEnvironment();
    printServices(spec.commandLine().getOut(), stack, List.of());
    if (stack.postgres().isUp()) {
      SlotList.print(
          spec.commandLine().getOut(), stack.connections().postgresJdbcUrl(), stack.connections());
    }
    return stack.services().stream().allMatch(LocalService::isUp) ? 0 : 3;
  }

  static void printServices(PrintWriter out, LocalStack stack, List<LocalService> startedHere) {
    for (LocalService service : stack.services()) {
      String state =
          service.isUp()
              ? startedHere.contains(service) ? "up (started)" : "up"
              : service.portTaken() ? "port taken" : "down";
      out.printf(
          "%-16s %-26s %-13s log: %s%n", service.name(), service.address(), state, service.log());
    }
    if (!stack.spanner().installed()) {
      out.printf(
          "%-16s not installed: identity runs on PostgreSQL only (to get it: %s)%n",
          stack.spanner().name(), SpannerEmulatorService.HOW_TO_INSTALL);
    }
    out.printf(
        "search engine: %s (%s %s)%n",
        stack.searchEngine().key(),
        stack.searchEngine().product(),
        stack.searchEngine().version(stack.settings().versions()));
    out.flush();
  }
}
