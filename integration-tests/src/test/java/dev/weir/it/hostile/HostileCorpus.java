package dev.weir.it.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.it.LocalStackExtension;
import dev.weir.schema.DeadLetter;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The hostile-input corpus of one topic ({@code src/test/resources/hostile/<topic>.json}, format in
 * the README there): each case is a record and what must become of it, {@code dlq} (in {@code
 * weir.dlq} with its raw bytes and a reason containing the given text) or {@code processed} (its
 * effect is checked by the test of the job).
 */
final class HostileCorpus {

  /** One hostile record. {@code value} null is a Kafka record without a value (a tombstone). */
  record Case(String name, boolean deadLetter, String reason, byte[] value, JsonNode event) {}

  /** What a run of a corpus and valid records around it came to. */
  record Report(String job, int valid, int processed, int deadLettered, int lost, int restarts) {
    String line() {
      return String.format(
          "%-13s %4d records in: %3d valid + %2d hostile processed, %2d in the DLQ with a reason;"
              + " lost %d; job restarts %d",
          job, valid + processed + deadLettered, valid, processed, deadLettered, lost, restarts);
    }
  }

  /** A recent time for events that must not be archived, late or in the future. */
  static final String RECENT =
      Instant.now().minus(2, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS).toString();

  private final String topic;
  private final List<Case> cases;

  private HostileCorpus(String topic, List<Case> cases) {
    this.topic = topic;
    this.cases = cases;
  }

  /**
   * Loads {@code hostile/<file>.json}; {@code generated} makes the cases the file names by a
   * "generate" key (records too large or too deep to keep in a file).
   */
  static HostileCorpus load(String file, String topic, Function<String, byte[]> generated) {
    List<Case> cases = new ArrayList<>();
    for (JsonNode c : resource("hostile/" + file + ".json")) {
      JsonNode verdict = c;
      boolean dlq = verdict.path("expect").asText().equals("dlq");
      assertThat(dlq || verdict.path("expect").asText().equals("processed"))
          .as("expect of %s", c.path("case"))
          .isTrue();
      JsonNode event = null;
      byte[] value;
      if (c.has("event")) {
        event = withRecentTimes(c.get("event").deepCopy());
        value = bytes(event);
      } else if (c.has("text")) {
        value = c.get("text").asText().getBytes(StandardCharsets.UTF_8);
      } else if (c.has("base64")) {
        value = Base64.getDecoder().decode(c.get("base64").asText());
      } else if (c.path("null").asBoolean()) {
        value = null;
      } else {
        value = generated.apply(c.path("generate").asText());
      }
      cases.add(
          new Case(
              c.path("case").asText(), dlq, verdict.path("reason").asText(null), value, event));
    }
    return new HostileCorpus(topic, cases);
  }

  /** Records the corpus generates the same way for every topic, or null. */
  static byte[] generic(String name, int maxBytes) {
    return switch (name) {
      case "oversized" ->
          ("{\"pad\":\"" + "x".repeat(maxBytes + 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
      case "deep" -> ("[".repeat(1000) + "]".repeat(1000)).getBytes(StandardCharsets.UTF_8);
      case "unknown-fields" -> unknownFields(60_000);
      default -> throw new IllegalArgumentException("no generator for '" + name + "'");
    };
  }

  /**
   * A valid activity event with {@code n} fields its schema forbids: one violation each, a reason
   * of megabytes if every violation were kept. 60,000 make a record of 0.6 MB.
   */
  static byte[] unknownFields(int n) {
    StringBuilder json =
        new StringBuilder(
            "{\"event_id\":\"h-unknown-fields\",\"workspace_id\":\"ws-hostile\",\"actor_id\":"
                + "\"actor\",\"element_type\":\"repository\",\"element_id\":\"unknown-fields\","
                + "\"action\":\"push\",\"occurred_at\":\""
                + RECENT
                + "\"");
    for (int i = 0; i < n; i++) {
      json.append(",\"f").append(i).append("\":0");
    }
    return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  String topic() {
    return topic;
  }

  List<Case> cases() {
    return cases;
  }

  List<Case> processed() {
    return cases.stream().filter(c -> !c.deadLetter()).toList();
  }

  long deadLetters() {
    return cases.stream().filter(Case::deadLetter).count();
  }

  /** Sends the hostile records interleaved with the valid ones, to one partition, in order. */
  void sendAmong(List<byte[]> valid) {
    Properties props = new Properties();
    props.setProperty(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        LocalStackExtension.connections().kafkaBootstrapServers());
    props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    // The oversized record must reach the broker, where the job meets it.
    props.setProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 << 20));
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      Iterator<byte[]> good = valid.iterator();
      Iterator<Case> bad = cases.iterator();
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      while (good.hasNext() || bad.hasNext()) {
        if (good.hasNext()) {
          sent.add(producer.send(new ProducerRecord<>(topic, 0, null, good.next())));
        }
        if (bad.hasNext()) {
          sent.add(producer.send(new ProducerRecord<>(topic, 0, null, bad.next().value())));
        }
      }
      for (Future<RecordMetadata> record : sent) {
        record.get(); // every record reached the broker: a refused one would be no test
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError("cannot send the corpus of " + topic + ": " + e, e);
    }
  }

  /**
   * Matches the dead letters of this topic with the cases that must be dead letters: each case by
   * its raw bytes (or, for a rejection by a job's rules after decoding, by its event), and a reason
   * containing the expected text. Returns how many cases found no dead letter (lost). Fails on a
   * dead letter that no case expects: a valid record sent to the DLQ.
   */
  int match(List<DeadLetter> deadLetters) {
    List<DeadLetter> pool =
        new ArrayList<>(deadLetters.stream().filter(d -> d.sourceTopic().equals(topic)).toList());
    int lost = 0;
    for (Case c : cases) {
      if (!c.deadLetter()) {
        continue;
      }
      DeadLetter found = pool.stream().filter(d -> same(c.value(), d)).findFirst().orElse(null);
      if (found == null) {
        lost++;
        System.out.printf("LOST (no dead letter): %s / %s%n", topic, c.name());
        continue;
      }
      pool.remove(found);
      assertThat(found.reason()).as("reason for '%s'", c.name()).contains(c.reason());
      assertThat(found.job()).isNotBlank();
    }
    assertThat(pool)
        .as("dead letters of %s that no hostile case expects (valid records rejected)", topic)
        .extracting(DeadLetter::reason)
        .isEmpty();
    return lost;
  }

  /** Decodes the DLQ's records as a consumer of the weir.dlq contract would. */
  static DeadLetter deadLetter(byte[] json) {
    try {
      // As large as a dead letter of the largest record a job takes may be.
      return EventCodec.of(EventSchema.DLQ, DeadLetter.class).withMaxBytes(8 << 20).decode(json);
    } catch (InvalidEventException e) {
      throw new AssertionError("a dead letter that breaks its own schema: " + e.getMessage(), e);
    }
  }

  static byte[] bytes(JsonNode event) {
    try {
      return Json.mapper().writeValueAsBytes(event);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean same(byte[] sent, DeadLetter letter) {
    byte[] dead = letter.rawValue();
    if (Arrays.equals(sent, dead)) {
      return true;
    }
    if (Boolean.TRUE.equals(letter.rawValueTruncated())) {
      // Over the job's limit: the dead letter holds the record's first record.max-bytes bytes.
      return sent != null
          && dead.length < sent.length
          && Arrays.equals(sent, 0, dead.length, dead, 0, dead.length);
    }
    // Rejected by a rule after decoding: the dead letter holds the event written again.
    try {
      JsonNode a = Json.mapper().readTree(sent);
      JsonNode b = Json.mapper().readTree(dead);
      return a != null
          && b != null
          && a.hasNonNull("event_id")
          && a.get("event_id").equals(b.get("event_id"));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static JsonNode withRecentTimes(JsonNode node) {
    if (node instanceof ObjectNode o) {
      o.fieldNames()
          .forEachRemaining(
              f -> {
                JsonNode v = o.get(f);
                if (v.isTextual() && v.asText().equals("${recent}")) {
                  o.put(f, RECENT);
                } else {
                  withRecentTimes(v);
                }
              });
    } else if (node.isArray()) {
      node.forEach(HostileCorpus::withRecentTimes);
    }
    return node;
  }

  private static JsonNode resource(String path) {
    try (InputStream in = HostileCorpus.class.getClassLoader().getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return Json.mapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Duration patience() {
    return Duration.ofSeconds(90);
  }
}
