package dev.weir.cli;

import dev.weir.capture.ReplicationSlots;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.stack.Connections;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The logical replication slots of a PostgreSQL server, one line each, so that a slot left behind
 * by a cancelled capture (which keeps the server's WAL for ever) is seen.
 */
final class SlotList {

  private SlotList() {}

  /** The slots of the local stack's server. */
  static void print(PrintWriter out, String url, Connections stack) {
    print(out, url, WeirConfig.from(Map.of(), stack.environment()));
  }

  /** The slots of the server at {@code url}, with the user and password of {@code config}. */
  static void print(PrintWriter out, String url, WeirConfig config) {
    try (Connection c = PostgresConnectionProvider.open(config, url)) {
      List<ReplicationSlots.Slot> slots = ReplicationSlots.all(c);
      out.println("replication slots: " + (slots.isEmpty() ? "none" : slots.size() + " (logical)"));
      for (ReplicationSlots.Slot slot : slots) {
        out.println("  " + ReplicationSlots.describe(slot));
      }
    } catch (SQLException e) {
      out.println("replication slots: cannot read them at " + url + ": " + e.getMessage());
    }
    out.flush();
  }
}
