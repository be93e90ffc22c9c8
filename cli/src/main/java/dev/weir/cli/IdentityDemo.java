package dev.weir.cli;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import dev.weir.cli.load.EventProducer;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityKey;
import dev.weir.identity.IdentityOptions;
import dev.weir.identity.IdentityRecord;
import dev.weir.identity.IdentityStore;
import dev.weir.identity.IdentityStores;
import dev.weir.identity.SpannerClients;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.IdentityEvent;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.TrackingEvent;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The identity part of {@code weir demo}: one shopper, first anonymous on three devices, then
 * signed up (identify), her phone linked (alias) and her tablet's profile joined to hers (merge).
 * Each tracking event is shown as sent and as the job enriched it, with its canonical id; then the
 * identity table. Topics of its own (demo.tracking.*, demo.identity.*), recreated on every run.
 */
final class IdentityDemo {

  static final String TRACKING = "demo.tracking.events";
  static final String IDENTITY = "demo.identity.events";
  static final String ENRICHED = "demo.tracking.enriched";
  private static final String PROJECT = "demo-shop";

  private static final String LAPTOP = "anon-laptop-7f3a";
  private static final String PHONE = "anon-phone-91c2";
  private static final String TABLET = "anon-tablet-c04e";
  private static final String EMAIL = "ada@mail.example";
  private static final String USER = "user-ada";

  private static final Instant T0 = Instant.parse("2026-01-15T08:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(90);

  private final PrintWriter out;
  private final WeirConfig config;
  private final EventProducer producer;
  private final KafkaConsumer<byte[], byte[]> enriched;

  /** The identity table, read through the job's own store (PostgreSQL or Spanner). */
  private final IdentityStore table;

  private final Map<String, EnrichedTrackingEvent> received = new HashMap<>();
  private int sent;
  private int minute;
  private boolean asExpected = true;

  private IdentityDemo(PrintWriter out, WeirConfig config) throws Exception {
    this.out = out;
    this.config = config;
    this.producer = new EventProducer(config);
    Properties props = KafkaClients.clientProperties(config);
    props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, "weir-demo-" + System.nanoTime());
    props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // The job writes in transactions committed at checkpoints: read what a consumer would see.
    props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    this.enriched =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.table = IdentityStores.of(config).open();
  }

  /** What the section did: a line for the demo's summary, and whether every id was as expected. */
  record Result(String summary, boolean asExpected) {}

  /**
   * @param base the demo's configuration; identity.store says where the table is: PostgreSQL (the
   *     configuration's database gets it) or Spanner (the shopper's rows are deleted first)
   */
  static Result run(PrintWriter out, WeirConfig base, int webPort) throws Exception {
    WeirConfig config =
        base.with(IdentityOptions.TRACKING_TOPIC, TRACKING)
            .with(IdentityOptions.IDENTITY_TOPIC, IDENTITY)
            .with(IdentityOptions.ENRICHED_TOPIC, ENRICHED)
            .with(WeirOptions.DLQ_TOPIC, "demo.dlq.identity");
    KafkaTopics.deleteTopics(
        config, List.of(TRACKING, IDENTITY, ENRICHED, config.get(WeirOptions.DLQ_TOPIC)));
    boolean spanner = config.get(IdentityOptions.STORE).equals("spanner");
    if (spanner) {
      forgetTheShopper(config);
    }
    out.printf(
        "== 11. identity: %s + %s → identity job → %s (each event with the canonical id of its"
            + " person) and the table identity_mapping in %s (web UI: :%d)%n",
        TRACKING,
        IDENTITY,
        ENRICHED,
        spanner
            ? "Cloud Spanner's emulator (" + SpannerClients.Settings.of(config).emulatorHost() + ")"
            : "PostgreSQL",
        webPort + 5);
    out.flush();
    JobClient job =
        JobRunner.start(new IdentityJob(), RunCommand.localEnvironment(webPort + 5), config);
    IdentityDemo demo = new IdentityDemo(out, config);
    try {
      demo.enriched.subscribe(List.of(ENRICHED));
      return demo.story();
    } finally {
      demo.enriched.close();
      demo.producer.close();
      demo.table.close();
      job.cancel().get();
    }
  }

  /** The Spanner emulator keeps its rows between demos: the shopper starts unknown each time. */
  private static void forgetTheShopper(WeirConfig config) {
    try (SpannerClients.Lease spanner = SpannerClients.lease(SpannerClients.Settings.of(config))) {
      spanner
          .client()
          .writeAtLeastOnce(
              List.of(Mutation.delete("identity_mapping", KeySet.prefixRange(Key.of(PROJECT)))));
    }
  }

  private Result story() throws Exception {
    out.println(
        "   a) an anonymous visitor browses on her laptop, her phone and her tablet. Nothing says"
            + " they are one person: each device id is its own canonical id.");
    track(LAPTOP, "page_view", LAPTOP);
    track(LAPTOP, "product_view", LAPTOP);
    track(PHONE, "page_view", PHONE);
    track(TABLET, "page_view", TABLET);
    showEnriched();

    out.printf(
        "   b) identify %s → %s: she signs up on the laptop. The laptop's id now maps to her user"
            + " id, and so do its next events; the events already sent keep the id they had.%n",
        LAPTOP, USER);
    identity(IdentityEvent.Type.IDENTIFY, LAPTOP, USER);
    track(LAPTOP, "add_to_cart", USER);
    showEnriched();

    out.printf(
        "   c) alias %s → %s: she signs in on her phone. The phone becomes an alias of the laptop,"
            + " so it takes the laptop's canonical id, %s.%n",
        PHONE, LAPTOP, USER);
    identity(IdentityEvent.Type.ALIAS, PHONE, LAPTOP);
    track(PHONE, "checkout", USER);
    showEnriched();

    out.printf(
        "   d) a second profile: the tablet, and the e-mail address she gave the tablet's newsletter"
            + " form (alias %s → %s). Still anonymous: its canonical id is the tablet's.%n",
        EMAIL, TABLET);
    identity(IdentityEvent.Type.ALIAS, EMAIL, TABLET);
    track(EMAIL, "newsletter_open", TABLET);
    showEnriched();

    out.printf(
        "   e) merge %s → %s: support finds the tablet's profile is hers. Every id of that profile"
            + " (the tablet and the e-mail address) moves to %s in one step.%n",
        TABLET, LAPTOP, USER);
    identity(IdentityEvent.Type.MERGE, TABLET, LAPTOP);
    track(TABLET, "product_view", USER);
    track(EMAIL, "newsletter_open", USER);
    showEnriched();

    out.println(
        "   the identity table: one person, every id mapped to "
            + USER
            + " (earliest_seen: the first event of each id; identify_seen, alias_seen: how it"
            + " joined):");
    int[] rows = printTable();
    // Every id she used, whatever the path it came by, must end at her user id.
    asExpected &= rows[0] == 4 && rows[1] == rows[0];
    if (!asExpected) {
      out.println(
          "   NOT AS EXPECTED: an event or a row above does not have the canonical id it should");
    }
    out.flush();
    return new Result(
        String.format(
            "identity: %d tracking events enriched, 4 identity events (identify, 2 alias, merge);"
                + " %d of %d ids resolved to %s",
            sent, rows[1], rows[0], USER),
        asExpected);
  }

  // --- the events

  private final Map<String, String> expected = new LinkedHashMap<>();
  private final Map<String, TrackingEvent> pending = new LinkedHashMap<>();

  private void track(String distinctId, String name, String canonical) {
    String id = "e" + (++sent);
    TrackingEvent e =
        new TrackingEvent(
            id,
            PROJECT,
            distinctId,
            name,
            T0.plus(Duration.ofMinutes(minute += 3)),
            new HashMap<>(Map.of("step", sent)));
    expected.put(id, canonical);
    pending.put(id, e);
    send(TRACKING, distinctId, EventSchema.TRACKING_EVENTS, e);
  }

  /**
   * Sends an identity event and waits until the table shows it, and 2 s more: the change reaches
   * the enricher on its own path (two topics have no common order), so events sent at once could
   * still see the old mapping.
   */
  private void identity(IdentityEvent.Type type, String distinctId, String targetId)
      throws Exception {
    String expectedCanonical = canonicalOf(targetId);
    send(
        IDENTITY,
        distinctId,
        EventSchema.IDENTITY_EVENTS,
        new IdentityEvent(
            "i" + sent + "-" + type.wireName(),
            type,
            PROJECT,
            distinctId,
            targetId,
            T0.plus(Duration.ofMinutes(minute += 3))));
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!expectedCanonical.equals(canonicalOf(distinctId)) && System.nanoTime() < deadline) {
      Thread.sleep(250);
    }
    Thread.sleep(2_000);
  }

  /** The canonical id the table holds for {@code distinctId}; an id it does not hold is its own. */
  private String canonicalOf(String distinctId) throws Exception {
    IdentityKey key = new IdentityKey(PROJECT, distinctId);
    IdentityRecord row = table.get(Set.of(key)).get(key);
    return row == null ? distinctId : row.canonicalId();
  }

  @SuppressWarnings("unchecked")
  private <T> void send(String topic, String key, EventSchema schema, T event) {
    producer.send(
        topic,
        key.getBytes(StandardCharsets.UTF_8),
        EventCodec.of(schema, (Class<T>) event.getClass()).encode(event));
    producer.flush();
  }

  /** Waits for the pending events on tracking.enriched; prints each as sent and as enriched. */
  private void showEnriched() {
    EventCodec<EnrichedTrackingEvent> codec =
        EventCodec.of(EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!received.keySet().containsAll(pending.keySet()) && System.nanoTime() < deadline) {
      for (var record : enriched.poll(Duration.ofMillis(250))) {
        try {
          EnrichedTrackingEvent e = codec.decode(record.value());
          received.put(e.eventId(), e);
        } catch (InvalidEventException e) {
          out.println("     an invalid event on " + ENRICHED + ": " + e.getMessage());
          asExpected = false;
        }
      }
    }
    for (TrackingEvent sentEvent : pending.values()) {
      EnrichedTrackingEvent e = received.get(sentEvent.eventId());
      String want = expected.get(sentEvent.eventId());
      String got = e == null ? "(not seen in " + WAIT.toSeconds() + " s)" : e.canonicalId();
      boolean ok = want.equals(got);
      asExpected &= ok;
      out.printf(
          "     %s %s %-16s %-16s → canonical %s%s%n",
          sentEvent.eventId(),
          sentEvent.time().toString().substring(11, 16),
          sentEvent.distinctId(),
          sentEvent.name(),
          got,
          ok ? "" : "   ← EXPECTED " + want);
    }
    pending.clear();
    out.flush();
  }

  /** Prints the rows of her ids; how many, and how many map to her user id. */
  private int[] printTable() throws Exception {
    List<IdentityKey> keys =
        Stream.of(LAPTOP, PHONE, TABLET, EMAIL).map(id -> new IdentityKey(PROJECT, id)).toList();
    List<IdentityRecord> rows =
        table.get(keys).values().stream()
            .sorted(
                Comparator.comparing(
                        IdentityRecord::earliestSeen,
                        Comparator.nullsLast(Comparator.naturalOrder()))
                    .thenComparing(IdentityRecord::distinctId))
            .toList();
    out.printf(
        "     %-18s %-12s %-13s %-13s %s%n",
        "distinct_id", "canonical_id", "earliest_seen", "identify_seen", "alias_seen");
    for (IdentityRecord row : rows) {
      out.printf(
          "     %-18s %-12s %-13s %-13s %s%n",
          row.distinctId(),
          row.canonicalId(),
          row.earliestSeen() == null
              ? "-"
              : Instant.ofEpochMilli(row.earliestSeen()).toString().substring(11, 16),
          row.identifySeen(),
          row.aliasSeen());
    }
    return new int[] {
      rows.size(), (int) rows.stream().filter(r -> USER.equals(r.canonicalId())).count()
    };
  }
}
