package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The WAL position the benchmarks measure between includes a step's last transaction, committed
 * without waiting for the WAL flush (synchronous_commit off). With the written-out position, a
 * thousand-row batch of ten was left out of the feed benchmark's floor in some runs.
 */
@ExtendWith(LocalStackExtension.class)
class TableStatsITCase {

  @Test
  void theWalPositionAfterAStepIncludesItsLastTransaction() throws Exception {
    WeirConfig config = TestDatabases.fresh(LocalStackExtension.config(), "it_wal_position");
    try (Connection c = PostgresConnectionProvider.open(config);
        Statement s = c.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
      s.execute("CREATE TABLE step (id int PRIMARY KEY, v text)");
      s.execute("SET synchronous_commit = off");
      c.setAutoCommit(false);
      for (int round = 0; round < 5; round++) {
        String before = TableStats.walPosition(c);
        c.commit();
        s.execute(
            "INSERT INTO step SELECT g, repeat('x', 200) FROM generate_series("
                + round * 1000
                + ", "
                + (round * 1000 + 999)
                + ") g");
        c.commit();
        String after = TableStats.walPosition(c);
        c.commit();
        TableStats.awaitWalFlushed(c, after);
        assertThat(insertsBetween(c, before, after)).isEqualTo(1000);
      }
    }
  }

  private static long insertsBetween(Connection c, String from, String to) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT count(*) FROM pg_get_wal_block_info(?::pg_lsn, ?::pg_lsn, false)"
                + " WHERE relfilenode = pg_relation_filenode('step')"
                + " AND resource_manager = 'Heap' AND record_type LIKE 'INSERT%'")) {
      ps.setString(1, from);
      ps.setString(2, to);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long n = rs.getLong(1);
        c.commit();
        return n;
      }
    }
  }
}
