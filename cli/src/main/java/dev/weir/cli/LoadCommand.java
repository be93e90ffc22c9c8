package dev.weir.cli;

import dev.weir.cli.load.EventProducer;
import dev.weir.cli.load.GithubEvents;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaIo;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    description = "Produce sample or real data to weir's topics.")
final class LoadCommand {

  static final String BUNDLED_GITHUB_SAMPLE = "weir/samples/github-events-2021-07-21.ndjson";

  @Spec CommandSpec spec;

  /** What a load did. */
  record Loaded(long produced, long skipped) {}

  @Command(
      name = "github",
      mixinStandardHelpOptions = true,
      description =
          "Map GH Archive events (one JSON object a line) onto activity.events, in file order.")
  int github(
      @Parameters(
              paramLabel = "FILE",
              arity = "0..1",
              description =
                  "GH Archive .ndjson file; default: the bundled 2021-07-21 sample (369 events).")
          Path file,
      @Option(
              names = "--topic",
              defaultValue = "activity.events",
              description = "Target topic (default: ${DEFAULT-VALUE}).")
          String topic)
      throws IOException {
    Loaded loaded =
        loadGithub(
            WeirConfig.from(Map.of(), System.getenv()), file, topic, spec.commandLine().getErr());
    spec.commandLine()
        .getOut()
        .printf(
            "produced %d activity events to %s (%d line(s) skipped)%n",
            loaded.produced(), topic, loaded.skipped());
    return 0;
  }

  static Loaded loadGithub(WeirConfig config, Path file, String topic, java.io.PrintWriter err)
      throws IOException {
    KafkaIo.createTopicsIfMissing(config, List.of(topic), 2);
    EventCodec<ActivityEvent> codec =
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
    long skipped = 0;
    try (InputStream in =
            file == null
                ? LoadCommand.class.getClassLoader().getResourceAsStream(BUNDLED_GITHUB_SAMPLE)
                : Files.newInputStream(file);
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        EventProducer producer = new EventProducer(config)) {
      String line;
      int number = 0;
      while ((line = reader.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        try {
          ActivityEvent event = GithubEvents.toActivityEvent(line);
          producer.send(
              topic, event.workspaceId().getBytes(StandardCharsets.UTF_8), codec.encode(event));
        } catch (IOException | RuntimeException e) {
          skipped++;
          err.printf("line %d skipped: %s%n", number, e.getMessage());
        }
      }
      producer.flush();
      return new Loaded(producer.sent(), skipped);
    }
  }
}
