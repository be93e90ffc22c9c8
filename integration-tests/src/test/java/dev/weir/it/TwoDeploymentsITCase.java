package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.JobRunner;
import dev.weir.identity.IdentityJob;
import dev.weir.identity.IdentityOptions;
import dev.weir.schema.EnrichedTrackingEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.TrackingEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two deployments of one job on one broker (e.g. a staging and a production identity, or two
 * tenants), each with its own topics: their exactly-once sinks must not share Kafka transactional
 * ids, or each start of one fences the other's producers and both restart.
 */
@ExtendWith(LocalStackExtension.class)
class TwoDeploymentsITCase {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder().setNumberSlotsPerTaskManager(4).build());

  private static final int EVENTS = 200;
  private static final Instant T0 = Instant.parse("2026-11-21T08:00:00Z");

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void twoIdentityDeploymentsOnOneBrokerEachDeliverEveryEventOnceWithoutFencing(
      @InjectClusterClient RestClusterClient<?> flink) throws Exception {
    WeirConfig blue = deployment("blue");
    WeirConfig green = deployment("green");
    JobClient blueJob = JobRunner.start(new IdentityJob(), env(), blue);
    JobClient greenJob = JobRunner.start(new IdentityJob(), env(), green);
    try {
      // Both run at once, checkpointing (and so committing a transaction) every second, with
      // events arriving the whole time.
      Map<String, String> sentBlue = new TreeMap<>();
      Map<String, String> sentGreen = new TreeMap<>();
      for (int wave = 0; wave < 10; wave++) {
        for (int i = 0; i < EVENTS / 10; i++) {
          int n = wave * (EVENTS / 10) + i;
          track(blue, "blue-" + n, "b" + (n % 7), sentBlue);
          track(green, "green-" + n, "g" + (n % 7), sentGreen);
        }
        Thread.sleep(1_000);
      }
      Map<String, String> outBlue = awaitEnriched(blue);
      Map<String, String> outGreen = awaitEnriched(green);

      String blueFailures = FlinkRest.exceptions(flink, blueJob.getJobID());
      String greenFailures = FlinkRest.exceptions(flink, greenJob.getJobID());
      assertThat(blueFailures).as("blue's failures").doesNotContain("Fenced");
      assertThat(greenFailures).as("green's failures").doesNotContain("Fenced");
      for (JobClient job : List.of(blueJob, greenJob)) {
        assertThat(
                flink.getJobDetails(job.getJobID()).get().getTimestamps().get(JobStatus.RESTARTING))
            .as("job %s restarted", job.getJobID())
            .isZero();
      }
      assertThat(outBlue).as("blue's output, each event once").isEqualTo(sentBlue);
      assertThat(outGreen).as("green's output, each event once").isEqualTo(sentGreen);
    } finally {
      blueJob.cancel().get();
      greenJob.cancel().get();
    }
  }

  private WeirConfig deployment(String id) {
    return TestDatabases.fresh(LocalStackExtension.config(), "it_two_" + id)
        .with(WeirOptions.DEPLOYMENT_ID, id)
        .with(IdentityOptions.TRACKING_TOPIC, "it.two.tracking." + id + "." + run)
        .with(IdentityOptions.IDENTITY_TOPIC, "it.two.identity." + id + "." + run)
        .with(IdentityOptions.ENRICHED_TOPIC, "it.two.enriched." + id + "." + run)
        .with(WeirOptions.DLQ_TOPIC, "it.two.dlq." + id + "." + run)
        .with(WeirOptions.CHECKPOINT_INTERVAL, "1 s");
  }

  private static void track(
      WeirConfig config, String eventId, String distinctId, Map<String, String> sent) {
    sent.put(eventId, distinctId);
    TrackingEvent e =
        new TrackingEvent(
            eventId,
            "p1",
            distinctId,
            "page_view",
            T0.plusSeconds(sent.size()),
            new HashMap<>(Map.of("n", sent.size())));
    byte[] json = EventCodec.of(EventSchema.TRACKING_EVENTS, TrackingEvent.class).encode(e);
    Kafka.produce(
        config.get(IdentityOptions.TRACKING_TOPIC),
        List.of(new String(json, StandardCharsets.UTF_8)));
  }

  /** Event id → canonical id of every enriched event; an event emitted twice fails. */
  private static Map<String, String> awaitEnriched(WeirConfig config) throws Exception {
    String topic = config.get(IdentityOptions.ENRICHED_TOPIC);
    Kafka.readCommitted(topic, Duration.ofSeconds(120), r -> r.size() >= EVENTS);
    // A little longer, to see a duplicate.
    var records = Kafka.readCommitted(topic, Duration.ofSeconds(5), r -> r.size() > EVENTS);
    Map<String, String> out = new TreeMap<>();
    List<String> duplicates = new ArrayList<>();
    for (var r : records) {
      EnrichedTrackingEvent e =
          EventCodec.of(EventSchema.TRACKING_ENRICHED, EnrichedTrackingEvent.class)
              .decode(r.value());
      if (out.put(e.eventId(), e.canonicalId()) != null) {
        duplicates.add(e.eventId());
      }
    }
    assertThat(duplicates).as("events emitted twice to %s", topic).isEmpty();
    return out;
  }

  private static StreamExecutionEnvironment env() {
    return StreamExecutionEnvironment.getExecutionEnvironment();
  }
}
