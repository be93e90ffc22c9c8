package dev.weir.cli.load;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.schema.ActivityEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Produces a GH Archive file to {@code activity.events}, in file order, keyed by workspace. */
public final class GithubLoader {

  /** The bundled sample: 369 real events of 2021-07-21 (see weir/samples/README.md). */
  public static final String BUNDLED_SAMPLE = "weir/samples/github-events-2021-07-21.ndjson";

  /** What a load did. */
  public record Result(long produced, long skipped) {}

  private GithubLoader() {}

  /**
   * @param file the .ndjson file, or null for the bundled sample
   */
  public static Result load(WeirConfig config, Path file, String topic, PrintWriter err)
      throws IOException {
    KafkaTopics.createTopicsIfMissing(config, List.of(topic), 2);
    EventCodec<ActivityEvent> codec =
        EventCodec.of(EventSchema.ACTIVITY_EVENTS, ActivityEvent.class);
    long skipped = 0;
    try (InputStream in = open(file);
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
      return new Result(producer.sent(), skipped);
    }
  }

  /** The file, or the bundled sample when none is given. */
  public static InputStream open(Path file) throws IOException {
    return file == null
        ? GithubLoader.class.getClassLoader().getResourceAsStream(BUNDLED_SAMPLE)
        : Files.newInputStream(file);
  }
}
