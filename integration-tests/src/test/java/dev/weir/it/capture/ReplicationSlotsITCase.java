package dev.weir.it.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.capture.ReplicationSlots;
import dev.weir.capture.ReplicationSlots.Slot;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.it.Await;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A slot's lag and the WAL it keeps, as the capture's metrics and {@code weir stack status} read
 * them, on the real PostgreSQL: a slot nobody consumes falls behind by what is written, and catches
 * up when its changes are consumed.
 */
@ExtendWith(LocalStackExtension.class)
class ReplicationSlotsITCase {

  @Test
  void aSlotNobodyConsumesFallsBehindAndKeepsTheWalUntilItsChangesAreConsumed() throws Exception {
    WeirConfig config = TestDatabases.fresh(LocalStackExtension.config(), "it_slots");
    String slot = "it_slots_unconsumed";
    try (Connection c = PostgresConnectionProvider.open(config);
        Statement s = c.createStatement()) {
      s.execute(
          "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
              + " WHERE slot_name = '"
              + slot
              + "'");
      s.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'test_decoding')");
      Slot fresh = ReplicationSlots.named(c, slot).orElseThrow();
      assertThat(fresh.active()).isFalse();
      assertThat(fresh.database()).isEqualTo(c.getCatalog());

      // The local stack runs with synchronous_commit off: the WAL a commit wrote may not be flushed
      // yet, and a slot is only fed up to the flushed position. Flushing at commit makes the
      // written position the one a consumer can reach.
      s.execute("SET synchronous_commit TO on");
      s.execute("CREATE TABLE written (id int PRIMARY KEY, v text)");
      s.execute("INSERT INTO written SELECT g, repeat('x', 500) FROM generate_series(1, 4000) g");
      Slot behind =
          Await.until(
              Duration.ofSeconds(10),
              () -> ReplicationSlots.named(c, slot).orElseThrow(),
              s2 -> s2.lagBytes() > fresh.lagBytes() + 1_000_000);
      assertThat(behind.lagBytes()).isGreaterThan(fresh.lagBytes() + 1_000_000);
      assertThat(behind.retainedBytes()).isGreaterThanOrEqualTo(behind.lagBytes());
      assertThat(ReplicationSlots.all(c)).extracting(Slot::name).contains(slot);
      assertThat(ReplicationSlots.describe(behind)).contains(slot).contains("INACTIVE");

      s.execute("SELECT count(*) FROM pg_logical_slot_get_changes('" + slot + "', NULL, NULL)");
      Slot caughtUp = ReplicationSlots.named(c, slot).orElseThrow();
      assertThat(caughtUp.lagBytes()).isLessThan(behind.lagBytes() / 10);
    } finally {
      try (Connection c = PostgresConnectionProvider.open(config);
          Statement s = c.createStatement()) {
        s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
      }
    }
  }
}
